//! The deterministic input generator the fuzzers draw from (tests/fuzz_formats.rs,
//! tests/fuzz_options.rs, tests/fuzz_commands.rs): a seeded xorshift, numbers at every
//! limit, random edits, and the time grammar `parse_time` reads (sacct -S/-E, --begin,
//! --deadline); option values and command lines in [`options`], format strings in
//! [`formats`].
// Each fuzzer uses a different part of it.
#![allow(dead_code)]

pub mod formats;
pub mod options;

/// xorshift64: small, fast and the same on every machine.
pub struct Rng {
    pub state: u64,
    /// Draw command lines that should be accepted: supported options, valid values, no
    /// noise (so that building the job is exercised too, not only the error paths).
    pub clean: bool,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng {
            state: seed,
            clean: false,
        }
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.state = x;
        x
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1).max(1)
    }
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Bytes no grammar expects, and the separators every grammar has.
pub const NOISE: &[&str] = &[
    "\u{0}", "\r", "\n", "\t", " ", "é", "\u{feff}", ",", ":", ";", "-", "+", "=", "%", "*", "_",
    "[", "]", "(", ")", "?", "\"", "'", "\\", "#", ".", "/", "@", "0", "9", "x", "K",
];

/// A number as a user may type it: mostly small, sometimes at or past every limit.
pub fn num(r: &mut Rng) -> String {
    match r.below(24) {
        0 => i32::MAX.to_string(),
        1 => (i64::from(i32::MAX) + 1).to_string(),
        2 => u32::MAX.to_string(),
        3 => (u64::from(u32::MAX) + 1).to_string(),
        4 => i64::MAX.to_string(),
        5 => u64::MAX.to_string(),
        6 => "99999999999999999999999".to_string(),
        7 => "-1".to_string(),
        8 => format!("-{}", r.below(100_000)),
        9 => "+5".to_string(),
        10 => " 7".to_string(),
        11 => String::new(),
        12 => "0".to_string(),
        13 => format!("000{}", r.below(100)),
        14 => "1e3".to_string(),
        15 => "0x10".to_string(),
        16 => r.below(100_000).to_string(),
        _ => r.below(40).to_string(),
    }
}

/// Applies a random edit to a generated value now and then: a noise token inserted, a
/// character removed, a cut, a change of case, or a NUL.
pub fn mutate(r: &mut Rng, s: String) -> String {
    if r.clean || !r.chance(15) {
        return s;
    }
    let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
    let at = bounds[r.below(bounds.len())];
    match r.below(6) {
        0 | 1 => format!("{}{}{}", &s[..at], r.pick(NOISE), &s[at..]),
        2 => {
            let mut t = s.clone();
            if at < s.len() {
                t.remove(at);
            }
            t
        }
        3 => s[..at].to_string(),
        4 => {
            if r.chance(50) {
                s.to_uppercase()
            } else {
                s.to_lowercase()
            }
        }
        _ => format!("{}\u{0}{}", &s[..at], &s[at..]),
    }
}

/// `--begin`/`--deadline` and sacct's `-S`/`-E`: every form `parse_time` knows, and
/// near misses.
pub fn time_spec(r: &mut Rng) -> String {
    const WORDS: &[&str] = &[
        "now",
        "today",
        "tomorrow",
        "midnight",
        "noon",
        "elevenses",
        "fika",
        "teatime",
        "NOW",
        "Now",
        "uts",
        "am",
        "pm",
        "AM",
        "PM",
        "T",
    ];
    const UNITS: &[&str] = &[
        "", "s", "sec", "second", "seconds", "m", "minute", "minutes", "hour", "hours", "day",
        "days", "week", "weeks", "x",
    ];
    let d2 = |r: &mut Rng| format!("{:02}", r.below(70));
    let mut s = String::new();
    match r.below(10) {
        0 => s.push_str(r.pick(WORDS)),
        1 => {
            s.push_str(&d2(r));
            s.push(':');
            s.push_str(&d2(r));
            if r.chance(50) {
                s.push(':');
                s.push_str(&d2(r));
            }
            if r.chance(20) {
                s.push_str(r.pick(&[" AM", "pm", " PM", "am"]));
            }
        }
        2 => {
            let sep = r.pick(&["/", ".", ""]);
            s.push_str(&d2(r));
            s.push_str(sep);
            s.push_str(&d2(r));
            if r.chance(50) {
                s.push_str(sep);
                s.push_str(&d2(r));
            }
        }
        3 => {
            s.push_str(&format!(
                "{:04}-{:02}-{:02}",
                r.range(1960, 2200),
                r.below(14),
                r.below(33)
            ));
            if r.chance(60) {
                s.push_str(r.pick(&["T", "-", " "]));
                s.push_str(&format!("{:02}:{:02}", r.below(25), r.below(61)));
                if r.chance(50) {
                    s.push_str(&format!(":{:02}", r.below(61)));
                }
            }
        }
        4 => {
            s.push_str("uts");
            s.push_str(&num(r));
        }
        5 => {
            for _ in 0..r.below(12) {
                s.push_str(r.pick(NOISE));
                s.push_str(r.pick(&["1", "T", "-", ":", "/", "now", "+", "noon"]));
            }
        }
        6 => s.push_str(&num(r)),
        _ => {
            s.push_str(r.pick(WORDS));
            s.push_str(r.pick(&["+", "-", " + ", "+ "]));
            s.push_str(&num(r));
            s.push_str(r.pick(UNITS));
            if r.chance(10) {
                s.push_str(r.pick(&[" now", "today", " 10:00"]));
            }
        }
    }
    mutate(r, s)
}
