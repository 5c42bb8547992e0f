//! Generic resources: `--gres` (`arg_set_gres` and `gres_prepend_tres_type` on the client)
//! and the GPU options `-G/--gpus`, `--gpus-per-node`, `--gpus-per-task`,
//! `--gpus-per-socket` (`xfmt_tres` in `src/common/proc_args.c` turns `[type:]N` into
//! `gres:gpu:[type:]N`), then checked twice, as on a real 22.05.8:
//!
//! 1. by sbatch itself, in `slurm_opt_create_job_desc` → `gres_job_state_validate` →
//!    `_get_next_gres` (`src/common/gres.c`): each comma-separated item is `name`,
//!    `name:count`, `name:type` or `name:type:count`; a count is a `strtoull` number with
//!    an optional `k/m/g/t/p` (×1024ⁿ), `kb/mb/...` (×1000ⁿ) or `kib/mib/...` suffix; one
//!    colon followed by something that is not a valid count is a *type* with count 1
//!    (`gpu:a100`, but also `gpu:-1` and `gpu:0.5`); items with count 0 are dropped.
//!    Failure: `sbatch: error: Invalid generic resource (gres) specification`, exit
//!    `error_exit` ([`ValueError::Fatal`]). Names missing from the cluster's GresTypes
//!    fail here too: pass the known names to check them.
//! 2. by slurmctld's `valid_tres_cnt` (`src/slurmctld/job_mgr.c`): in each item, a last
//!    `:` part that starts with a digit must be a clean count (`gpu:2x` and `gpu:0.5` fail
//!    here), and no item may end in `:` (`gpu,,gpu:1` gives `gres:` and fails).
//!    Failure: `Batch job submission failed: Invalid Trackable RESource (TRES)
//!    specification` ([`Rejection::InvalidTres`]).
//!
//! **Our extension (not Slurm):** a decimal count such as `--gpus=0.5` or
//! `--gres=gpu:a100:0.25` is a *fractional* device count, which Backend.AI grants as
//! `cuda.shares`. Slurm itself has no fractions: it reads `gpu:0.5` as the type `0.5`
//! and then refuses it (TRES check), and refuses `gpu:a100:0.5` outright.

use super::{Rejection, ValueError};
use crate::model::cnum::{c_bytes, strtoull};
use std::fmt;

/// Largest number of decimals a fractional count may have.
const MAX_DECIMALS: u32 = 6;
const FRACTION_SCALE: u64 = 10u64.pow(MAX_DECIMALS);

/// How many units of a resource: whole (Slurm), or fractional (our Backend.AI extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GresCount {
    Whole(u64),
    /// A non-integral count in millionths (`0.5` is 500000).
    Fraction(u64),
}

impl GresCount {
    /// The count as a float (for `cuda.shares`).
    pub fn as_f64(self) -> f64 {
        match self {
            GresCount::Whole(n) => n as f64,
            GresCount::Fraction(micro) => micro as f64 / FRACTION_SCALE as f64,
        }
    }

    pub fn is_fractional(self) -> bool {
        matches!(self, GresCount::Fraction(_))
    }
}

impl fmt::Display for GresCount {
    /// `2`, or the shortest decimal form of a fraction (`0.5`, `1.25`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GresCount::Whole(n) => write!(f, "{n}"),
            GresCount::Fraction(micro) => {
                let frac = format!("{:06}", micro % FRACTION_SCALE);
                write!(
                    f,
                    "{}.{}",
                    micro / FRACTION_SCALE,
                    frac.trim_end_matches('0')
                )
            }
        }
    }
}

/// One GRES request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GresItem {
    pub name: String,
    pub gres_type: Option<String>,
    pub count: GresCount,
}

impl fmt::Display for GresItem {
    /// `gpu:2`, `gpu:a100:1`, as the TRES strings (`gres:` removed) show them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        if let Some(t) = &self.gres_type {
            write!(f, ":{t}")?;
        }
        write!(f, ":{}", self.count)
    }
}

/// A parsed `--gres`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GresSpec {
    /// `help` or `list`: sbatch prints the configured GRES and exits 0.
    Help,
    /// `none` (any case): for a step, do not inherit the job's GRES.
    None,
    Items(Vec<GresItem>),
}

/// `suffix_mult`.
fn suffix_mult(s: &[u8]) -> Option<u64> {
    let lower = s.to_ascii_lowercase();
    let (base, pow) = match lower.as_slice() {
        b"" => return Some(1),
        b"k" | b"kib" => (1024u64, 1),
        b"kb" => (1000, 1),
        b"m" | b"mib" => (1024, 2),
        b"mb" => (1000, 2),
        b"g" | b"gib" => (1024, 3),
        b"gb" => (1000, 3),
        b"t" | b"tib" => (1024, 4),
        b"tb" => (1000, 4),
        b"p" | b"pib" => (1024, 5),
        b"pb" => (1000, 5),
        _ => return None,
    };
    Some(base.pow(pow))
}

/// `_is_valid_number`, plus our fractional extension.
fn count(s: &[u8]) -> Option<GresCount> {
    if let Some(f) = fraction(s) {
        return Some(f);
    }
    let p = strtoull(s);
    if p.value == u64::MAX {
        return None;
    }
    let rest = if p.digits { &s[p.end..] } else { s };
    let mult = suffix_mult(rest)?;
    Some(GresCount::Whole(p.value.wrapping_mul(mult)))
}

/// `D.DDD` (digits on both sides, at most six decimals) → a count; integral values
/// (`1.0`) become whole counts.
fn fraction(s: &[u8]) -> Option<GresCount> {
    let dot = s.iter().position(|&c| c == b'.')?;
    let (int, dec) = (&s[..dot], &s[dot + 1..]);
    if int.is_empty()
        || dec.is_empty()
        || dec.len() > MAX_DECIMALS as usize
        || !int.iter().chain(dec).all(u8::is_ascii_digit)
    {
        return None;
    }
    let whole: u64 = std::str::from_utf8(int).ok()?.parse().ok()?;
    let mut micro: u64 = std::str::from_utf8(dec).ok()?.parse().ok()?;
    micro *= 10u64.pow(MAX_DECIMALS - dec.len() as u32);
    let total = whole.checked_mul(FRACTION_SCALE)?.checked_add(micro)?;
    Some(if micro == 0 {
        GresCount::Whole(whole)
    } else {
        GresCount::Fraction(total)
    })
}

/// sbatch's own GRES check failed.
fn invalid() -> ValueError {
    ValueError::Fatal(Rejection::InvalidGres.text().to_string())
}

/// `valid_tres_cnt` on a `gres:...` TRES string (the name lookup is the caller's).
fn valid_tres_cnt(tres: &[u8]) -> bool {
    for tok in tres.split(|&c| c == b',').filter(|t| !t.is_empty()) {
        let Some(last) = tok.iter().rposition(|&c| c == b':') else {
            return false;
        };
        let tail = &tok[last + 1..];
        if tail.is_empty() {
            return false;
        }
        if tail[0].is_ascii_digit() && fraction(tail).is_none() {
            let p = strtoull(tail);
            if p.value == u64::MAX || suffix_mult(&tail[p.end..]).is_none() {
                return false;
            }
        }
    }
    true
}

/// One item of `_get_next_gres` (after its `gres:` prefix): None for a count of 0.
fn parse_item(item: &[u8]) -> Result<Option<GresItem>, ValueError> {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let mut parts = item.splitn(3, |&c| c == b':');
    let name = parts.next().unwrap_or_default();
    let first = parts.next();
    let second = parts.next();
    let (gres_type, count) = match (first, second) {
        (Some(t), Some(c)) => {
            if t.is_empty() || c.is_empty() {
                return Err(invalid());
            }
            (Some(text(t)), self::count(c).ok_or_else(invalid)?)
        }
        (Some(c), None) => {
            if c.is_empty() {
                return Err(invalid());
            }
            match self::count(c) {
                Some(n) => (None, n),
                None => (Some(text(c)), GresCount::Whole(1)),
            }
        }
        _ => (None, GresCount::Whole(1)),
    };
    if count == GresCount::Whole(0) {
        return Ok(None);
    }
    // No GRES has an empty name: slurmctld's name lookup fails.
    if name.is_empty() {
        return Err(invalid());
    }
    Ok(Some(GresItem {
        name: text(name),
        gres_type,
        count,
    }))
}

/// The items of a `gres:`-prefixed TRES string, as `_get_next_gres` walks it.
fn parse_tres_list(s: &[u8], known: Option<&[&str]>) -> Result<Vec<GresItem>, ValueError> {
    let mut items = Vec::new();
    let mut rest = s;
    while let Some(pos) = rest.windows(5).position(|w| w == b"gres:") {
        rest = &rest[pos + 5..];
        let end = rest.iter().position(|&c| c == b',').unwrap_or(rest.len());
        let item = &rest[..end];
        rest = if end < rest.len() {
            &rest[end + 1..]
        } else {
            &[]
        };
        if item.is_empty() {
            continue;
        }
        if let Some(i) = parse_item(item)? {
            if known.is_some_and(|k| !k.contains(&i.name.as_str())) {
                return Err(invalid());
            }
            items.push(i);
        }
    }
    Ok(items)
}

/// `--gres` as sbatch and then slurmctld read it. `known` is the cluster's GRES names
/// (GresTypes); `None` skips that check (as sbatch does with `-M`).
pub fn parse_gres(s: &str, known: Option<&[&str]>) -> Result<GresSpec, ValueError> {
    let b = c_bytes(s);
    if b.eq_ignore_ascii_case(b"help") || b.eq_ignore_ascii_case(b"list") {
        return Ok(GresSpec::Help);
    }
    if b.eq_ignore_ascii_case(b"none") {
        return Ok(GresSpec::None);
    }
    // gres_prepend_tres_type: "gres:" before each item, without doubling an existing one.
    let mut tres = Vec::with_capacity(b.len() + 5);
    tres.extend_from_slice(b"gres:");
    for &c in b {
        tres.push(c);
        if c == b',' {
            tres.extend_from_slice(b"gres:");
        }
    }
    let tres = String::from_utf8_lossy(&tres).replace("gres:gres:", "gres:");
    let items = parse_tres_list(tres.as_bytes(), known)?;
    if !valid_tres_cnt(tres.as_bytes()) {
        return Err(ValueError::Rejected(Rejection::InvalidTres));
    }
    Ok(GresSpec::Items(items))
}

/// `--gpus`, `--gpus-per-node`, `--gpus-per-task`, `--gpus-per-socket`: `[type:]N[,...]`,
/// each item made `gres:gpu:<item>` (empty items skipped) and read like `--gres`.
/// An empty result (e.g. `--gpus=0`, `--gpus=`) means no GPUs. `known` as for
/// [`parse_gres`].
pub fn parse_gpus(s: &str, known: Option<&[&str]>) -> Result<Vec<GresItem>, ValueError> {
    let mut tres = Vec::new();
    for tok in c_bytes(s).split(|&c| c == b',').filter(|t| !t.is_empty()) {
        if !tres.is_empty() {
            tres.push(b',');
        }
        tres.extend_from_slice(b"gres:gpu:");
        tres.extend_from_slice(tok);
    }
    let items = parse_tres_list(&tres, known)?;
    if !valid_tres_cnt(&tres) {
        return Err(ValueError::Rejected(Rejection::InvalidTres));
    }
    Ok(items)
}

/// `--cpus-per-gpu` is a `parse_int` option.
pub fn parse_cpus_per_gpu(s: &str) -> Result<i32, ValueError> {
    super::int::parse_int("--cpus-per-gpu", s, true)
}

/// `--mem-per-gpu` is a memory size (`Invalid --mem-per-gpu specification`).
pub fn parse_mem_per_gpu(s: &str) -> Result<u64, ValueError> {
    super::memory::parse_mbytes(s, "--mem-per-gpu")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;

    fn g(name: &str, t: Option<&str>, count: GresCount) -> GresItem {
        GresItem {
            name: name.into(),
            gres_type: t.map(Into::into),
            count,
        }
    }
    const KNOWN: &[&str] = &["gpu", "mps"];
    fn items(s: &str) -> Vec<GresItem> {
        match parse_gres(s, Some(KNOWN)).unwrap() {
            GresSpec::Items(i) => i,
            other => panic!("{other:?}"),
        }
    }
    use GresCount::{Fraction, Whole};

    #[test]
    fn gres_forms() {
        assert_eq!(items("gpu"), vec![g("gpu", None, Whole(1))]);
        assert_eq!(items("gpu:2"), vec![g("gpu", None, Whole(2))]);
        assert_eq!(items("gpu:a100"), vec![g("gpu", Some("a100"), Whole(1))]);
        assert_eq!(items("gpu:a100:2"), vec![g("gpu", Some("a100"), Whole(2))]);
        assert_eq!(items("gres:gpu:2"), vec![g("gpu", None, Whole(2))]);
        assert_eq!(
            items("gpu:2,mps:100"),
            vec![g("gpu", None, Whole(2)), g("mps", None, Whole(100))]
        );
        assert_eq!(items("mps:1k"), vec![g("mps", None, Whole(1024))]);
        assert_eq!(items("mps:1KB"), vec![g("mps", None, Whole(1000))]);
        assert_eq!(items("mps:2mib"), vec![g("mps", None, Whole(2 << 20))]);
        assert_eq!(items("gpu:0"), vec![]);
        assert_eq!(items("gpu:0,mps:5"), vec![g("mps", None, Whole(5))]);
        // strtoull reads no digits, and "k" is a valid suffix: 0 × 1024, dropped.
        assert_eq!(items("gpu:k"), vec![]);
        // Slurm's reading of odd counts: not a number, so a type.
        assert_eq!(items("gpu:-1"), vec![g("gpu", Some("-1"), Whole(1))]);
        assert_eq!(items("gpu:.5"), vec![g("gpu", Some(".5"), Whole(1))]);
        assert_eq!(items("gpu: 2"), vec![g("gpu", None, Whole(2))]);
    }

    #[test]
    fn special_words() {
        assert_eq!(parse_gres("help", Some(KNOWN)), Ok(GresSpec::Help));
        assert_eq!(parse_gres("LIST", Some(KNOWN)), Ok(GresSpec::Help));
        assert_eq!(parse_gres("None", Some(KNOWN)), Ok(GresSpec::None));
    }

    #[test]
    fn gres_errors() {
        // Found by sbatch itself: one error line, exit error_exit.
        for s in [
            "gpu:",
            "gpu::1",
            "gpu:a100:",
            "gpu:a100:x",
            "gpu:a100:1:2",
            "gpu:t:-1",
            ":2",
            "bogus:1",
            "5",
            "gpu,,bogus",
        ] {
            let e = parse_gres(s, Some(KNOWN)).unwrap_err();
            assert_eq!(
                e.render("sbatch", "Batch job submission failed: "),
                "sbatch: error: Invalid generic resource (gres) specification\n",
                "{s:?}"
            );
            assert_eq!(e.exit_code(1), 1);
        }
        // Refused by slurmctld's TRES check.
        for s in ["", "gpu:2x", "gpu,", "gpu,,mps", "gpu:0.1234567", "gpu:1q"] {
            assert_eq!(
                parse_gres(s, Some(KNOWN)),
                Err(ValueError::Rejected(Rejection::InvalidTres)),
                "{s:?}"
            );
        }
        assert_eq!(
            Rejection::InvalidTres.text(),
            "Invalid Trackable RESource (TRES) specification"
        );
        // Without the known names, unknown ones pass.
        assert!(parse_gres("bogus:1", None).is_ok());
    }

    #[test]
    fn fractional_extension() {
        assert_eq!(items("gpu:0.5"), vec![g("gpu", None, Fraction(500_000))]);
        assert_eq!(
            items("gpu:a100:0.25"),
            vec![g("gpu", Some("a100"), Fraction(250_000))]
        );
        assert_eq!(items("gpu:1.0"), vec![g("gpu", None, Whole(1))]);
        assert_eq!(items("gpu:0.0"), vec![]);
        assert_eq!(
            parse_gpus("0.5", Some(KNOWN)).unwrap(),
            vec![g("gpu", None, Fraction(500_000))]
        );
        assert_eq!(Fraction(500_000).to_string(), "0.5");
        assert_eq!(Fraction(1_250_000).to_string(), "1.25");
        assert_eq!(Fraction(1).to_string(), "0.000001");
        assert_eq!(Fraction(250_000).as_f64(), 0.25);
        assert!(Fraction(1).is_fractional());
        // Not fractions: no leading digit (a type, as in Slurm), too many decimals.
        assert_eq!(items("gpu:.5"), vec![g("gpu", Some(".5"), Whole(1))]);
        assert!(parse_gres("gpu:0.1234567", None).is_err());
        assert!(parse_gres("gpu:a100:.5", None).is_err());
    }

    #[test]
    fn gpu_options() {
        assert_eq!(
            parse_gpus("2", Some(KNOWN)).unwrap(),
            vec![g("gpu", None, Whole(2))]
        );
        assert_eq!(
            parse_gpus("a100:2", Some(KNOWN)).unwrap(),
            vec![g("gpu", Some("a100"), Whole(2))]
        );
        assert_eq!(
            parse_gpus("a100", Some(KNOWN)).unwrap(),
            vec![g("gpu", Some("a100"), Whole(1))]
        );
        assert_eq!(
            parse_gpus("a100:1,v100:2", Some(KNOWN)).unwrap(),
            vec![
                g("gpu", Some("a100"), Whole(1)),
                g("gpu", Some("v100"), Whole(2))
            ]
        );
        assert_eq!(parse_gpus("0", Some(KNOWN)).unwrap(), vec![]);
        assert_eq!(parse_gpus("", Some(KNOWN)).unwrap(), vec![]);
        assert_eq!(
            parse_gpus(",2,", Some(KNOWN)).unwrap(),
            vec![g("gpu", None, Whole(2))]
        );
        // As in Slurm, "gpu:2" names the type "gpu".
        assert_eq!(
            parse_gpus("gpu:2", Some(KNOWN)).unwrap(),
            vec![g("gpu", Some("gpu"), Whole(2))]
        );
        assert!(parse_gpus("a100:", Some(KNOWN)).is_err());
        assert_eq!(g("gpu", Some("a100"), Whole(2)).to_string(), "gpu:a100:2");
        assert_eq!(g("gpu", None, Fraction(500_000)).to_string(), "gpu:0.5");
    }

    #[test]
    fn per_gpu_values() {
        assert_eq!(parse_cpus_per_gpu("4"), Ok(4));
        assert_eq!(
            parse_cpus_per_gpu("0").unwrap_err().message(),
            "Invalid numeric value \"0\" for --cpus-per-gpu."
        );
        assert_eq!(parse_mem_per_gpu("8G"), Ok(8192));
        assert_eq!(
            parse_mem_per_gpu("8X").unwrap_err().message(),
            "Invalid --mem-per-gpu specification"
        );
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(41, "gpu:a1.0,kKmMbB", 20, 20000) {
            let _ = parse_gres(&s, Some(KNOWN));
            let _ = parse_gpus(&s, None);
        }
    }
}
