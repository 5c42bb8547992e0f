//! Slurm hostlists: `node[01-04,07]` compression and expansion (src/common/hostlist.c).

use std::collections::HashMap;

/// Splits a host name into (prefix, numeric suffix as text).
fn split_numeric_suffix(host: &str) -> (&str, Option<&str>) {
    let digits = host.bytes().rev().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        (host, None)
    } else {
        let (p, n) = host.split_at(host.len() - digits);
        (p, Some(n))
    }
}

/// Compresses host names, in the order given, into Slurm's ranged form.
/// Consecutive hosts with the same prefix and number width merge into ranges.
pub fn compress<S: AsRef<str>>(hosts: &[S]) -> String {
    // Group by (prefix, width); keep the first-seen order of groups like Slurm's hostlist.
    let mut groups: Vec<(String, usize, Vec<u64>)> = Vec::new();
    let mut plain: Vec<(usize, String)> = Vec::new();
    let mut order: Vec<(bool, usize)> = Vec::new();
    // The groups of each prefix (one per width at most), so that finding a host's group
    // does not scan every group: lists of many prefixes (`n[0-65535].[0-9]`) stay linear.
    let mut by_prefix: HashMap<String, Vec<usize>> = HashMap::new();
    for h in hosts {
        let h = h.as_ref();
        match split_numeric_suffix(h) {
            (prefix, Some(num)) => {
                let value: u64 = match num.parse() {
                    Ok(v) => v,
                    Err(_) => {
                        plain.push((plain.len(), h.to_string()));
                        order.push((false, plain.len() - 1));
                        continue;
                    }
                };
                let padded = num.len() > 1 && num.starts_with('0');
                let fits = |w: usize| if w == 0 { !padded } else { num.len() == w };
                let candidates = by_prefix.entry(prefix.to_string()).or_default();
                if let Some(&i) = candidates.iter().find(|&&i| fits(groups[i].1)) {
                    groups[i].2.push(value);
                } else {
                    let width = if padded { num.len() } else { 0 };
                    groups.push((prefix.to_string(), width, vec![value]));
                    candidates.push(groups.len() - 1);
                    order.push((true, groups.len() - 1));
                }
            }
            (_, None) => {
                plain.push((plain.len(), h.to_string()));
                order.push((false, plain.len() - 1));
            }
        }
    }
    let mut out = Vec::new();
    for (is_group, idx) in order {
        if !is_group {
            out.push(plain[idx].1.clone());
            continue;
        }
        let (prefix, width, values) = &groups[idx];
        let mut values = values.clone();
        values.sort_unstable();
        values.dedup();
        let fmt = |v: u64| format!("{v:0width$}", width = *width);
        if values.len() == 1 {
            out.push(format!("{prefix}{}", fmt(values[0])));
            continue;
        }
        let mut ranges = Vec::new();
        let mut start = values[0];
        let mut prev = values[0];
        for &v in &values[1..] {
            if v == prev + 1 {
                prev = v;
                continue;
            }
            ranges.push((start, prev));
            start = v;
            prev = v;
        }
        ranges.push((start, prev));
        let body: Vec<String> = ranges
            .iter()
            .map(|&(a, b)| {
                if a == b {
                    fmt(a)
                } else {
                    format!("{}-{}", fmt(a), fmt(b))
                }
            })
            .collect();
        out.push(format!("{prefix}[{}]", body.join(",")));
    }
    out.join(",")
}

/// Compresses host names keeping their order, as Slurm's unsorted `hostlist_ranged_string`
/// does: a host extends the previous range only when it is the next number, and
/// neighbouring ranges with the same prefix share one bracket (`n[1,3,2]`).
pub fn compress_ordered<S: AsRef<str>>(hosts: &[S]) -> String {
    struct Range {
        prefix: String,
        lo: u64,
        hi: u64,
        width: usize,
        /// A name without a number.
        single: bool,
    }
    let mut ranges: Vec<Range> = Vec::new();
    for h in hosts {
        let h = h.as_ref();
        let (prefix, num) = split_numeric_suffix(h);
        let parsed = num.and_then(|n| n.parse::<u64>().ok().map(|v| (n, v)));
        let Some((digits, value)) = parsed else {
            ranges.push(Range {
                prefix: h.to_string(),
                lo: 0,
                hi: 0,
                width: 0,
                single: true,
            });
            continue;
        };
        let width = if digits.len() > 1 && digits.starts_with('0') {
            digits.len()
        } else {
            0
        };
        if let Some(tail) = ranges.last_mut()
            && !tail.single
            && tail.prefix == prefix
            && tail.width == width
            && tail.hi.checked_add(1) == Some(value)
        {
            tail.hi = value;
            continue;
        }
        ranges.push(Range {
            prefix: prefix.to_string(),
            lo: value,
            hi: value,
            width,
            single: false,
        });
    }
    let same_group = |a: &Range, b: &Range| !a.single && !b.single && a.prefix == b.prefix;
    let mut out = String::new();
    let mut i = 0;
    while i < ranges.len() {
        if i > 0 {
            out.push(',');
        }
        let first = &ranges[i];
        if first.single {
            out.push_str(&first.prefix);
            i += 1;
            continue;
        }
        let bracket =
            first.hi > first.lo || (i + 1 < ranges.len() && same_group(&ranges[i + 1], first));
        out.push_str(&first.prefix);
        if bracket {
            out.push('[');
        }
        let mut j = i;
        loop {
            let r = &ranges[j];
            if j > i {
                out.push(',');
            }
            out.push_str(&format!("{:0w$}", r.lo, w = r.width));
            if r.hi > r.lo {
                out.push_str(&format!("-{:0w$}", r.hi, w = r.width));
            }
            j += 1;
            if j >= ranges.len() || !same_group(&ranges[j], &ranges[j - 1]) {
                break;
            }
        }
        if bracket {
            out.push(']');
        }
        i = j;
    }
    out
}

/// Slurm's `MAX_RANGE`: one range naming more hosts is an error ("Too many hosts in range").
const MAX_RANGE: u64 = 64 * 1024;
/// Slurm's `MAX_PREFIX_CNT`: most values the brackets of one prefix level may take.
const MAX_PREFIX_CNT: u64 = 64 * 1024;
/// Most hosts (and prefixes) [`expand`] lists. Slurm keeps ranges and never lists them;
/// a list naming more than this (`a[0-65535]b[0-65535]` names four billion) is refused
/// here rather than listed for minutes.
const MAX_HOSTS: u64 = 1 << 20;
/// Most bytes of names (and of the prefixes that make them) [`expand`] writes: a long name
/// with many brackets (`n[1-9]-n[1-9]-...`, thousands of them) would otherwise copy itself
/// for every prefix level and every host it names, gigabytes before [`MAX_HOSTS`] is near.
const MAX_BYTES: u64 = 1 << 26;
/// Most brackets before the last one in a name: each is one level of recursion.
const MAX_LEVELS: usize = 64;

/// What [`expand`] may still make: hosts (and prefixes), and bytes of their names.
struct Budget {
    hosts: u64,
    bytes: u64,
}

impl Budget {
    fn spend(&mut self, hosts: u64, bytes: u64) -> Result<(), Stop> {
        self.hosts = self.hosts.checked_sub(hosts).ok_or(Stop::TooMany)?;
        self.bytes = self.bytes.checked_sub(bytes).ok_or(Stop::TooMany)?;
        Ok(())
    }
}

/// One parsed range of a bracket: `lo-hi`, printed `width` digits wide.
#[derive(Debug, Clone, Copy)]
struct Range {
    lo: u64,
    hi: u64,
    width: usize,
}

/// One host, or a range of hosts sharing a prefix, in the order the list names them.
#[derive(Debug)]
enum Entry {
    Host(String),
    Range(String, Range),
}

/// Why a hostlist could not be expanded.
#[derive(Debug)]
enum Stop {
    /// Malformed (Slurm's `hostlist_create` fails).
    Invalid,
    /// More than [`MAX_HOSTS`] hosts or prefixes, or [`MAX_BYTES`] of their names.
    TooMany,
}

/// Expands a hostlist as Slurm 22.05's `hostlist_create` reads one (1-D clusters):
/// `a[1-3,5],b` into `a1 a2 a3 a5 b`. Returns None on malformed input.
///
/// Hosts are separated by commas, blanks or tabs outside brackets. In each, the *last*
/// bracket must end the name (`n[1-2]x` is an error) and holds `N` or `A-B` items (read
/// by `strtoul`, printed as wide as `A` was written, at most 65536 hosts each); brackets
/// earlier in the name multiply it (`rack[1-2]-n[1-3]`, at most 65536 values a level).
/// Slurm's quirks are kept: a last `[` without a `]` names the host `<prefix>]`, a `]`
/// without a `[` is part of a name, and a bad bracket early in a name only drops the
/// hosts it would have named.
///
/// Difference: a list naming more than 2^20 hosts (`MAX_HOSTS`), or 64 MiB of host names
/// (`MAX_BYTES`), or a name with more than 64 brackets before its last (`MAX_LEVELS`), is
/// refused; Slurm would hold it as ranges.
pub fn expand(list: &str) -> Option<Vec<String>> {
    let list = &list[..list.find('\0').unwrap_or(list.len())];
    let mut entries: Vec<Entry> = Vec::new();
    let mut budget = Budget {
        hosts: MAX_HOSTS,
        bytes: MAX_BYTES,
    };
    let mut pos = 0;
    while let Some((start, end)) = next_token(list.as_bytes(), &mut pos) {
        let tok = &list[start..end];
        let Some(open) = tok.rfind('[') else {
            push_host(&mut entries, tok, &mut budget).ok()?;
            continue;
        };
        let (prefix, inner) = (&tok[..open], &tok[open + 1..]);
        let Some(close) = inner.find(']') else {
            // As 22.05.8 does: the name cut at the `[`, with a `]` added.
            let name = if prefix.is_empty() {
                inner.to_string()
            } else {
                format!("{prefix}]")
            };
            push_host(&mut entries, &name, &mut budget).ok()?;
            continue;
        };
        if !matches!(inner.as_bytes().get(close + 1), None | Some(b',')) {
            return None;
        }
        let ranges = range_list(&inner[..close]).ok()?;
        push_range_list(prefix, &ranges, &mut entries, &mut budget, 0).ok()?;
    }
    let count: u64 = entries
        .iter()
        .map(|e| match e {
            Entry::Host(_) => 1,
            Entry::Range(_, r) => r.hi - r.lo + 1,
        })
        .sum();
    let bytes: u64 = entries
        .iter()
        .map(|e| match e {
            Entry::Host(name) => name.len() as u64,
            Entry::Range(prefix, r) => {
                let digits = r.hi.checked_ilog10().unwrap_or(0) as u64 + 1;
                (r.hi - r.lo + 1) * (prefix.len() as u64 + digits.max(r.width as u64))
            }
        })
        .sum();
    if count > MAX_HOSTS || bytes > MAX_BYTES {
        return None;
    }
    let mut hosts = Vec::with_capacity(count as usize);
    for e in entries {
        match e {
            Entry::Host(name) => hosts.push(name),
            Entry::Range(prefix, r) => {
                for n in r.lo..=r.hi {
                    hosts.push(format!("{prefix}{n:0w$}", w = r.width));
                }
            }
        }
    }
    Some(hosts)
}

fn push_host(entries: &mut Vec<Entry>, name: &str, budget: &mut Budget) -> Result<(), Stop> {
    budget.spend(1, name.len() as u64)?;
    entries.push(Entry::Host(name.to_string()));
    Ok(())
}

/// `_next_tok` with the separators `"\t, "`: the next host expression and where it ends;
/// separators inside brackets do not split (`a[1, 2]` is one token).
fn next_token(b: &[u8], pos: &mut usize) -> Option<(usize, usize)> {
    let sep = |c: u8| matches!(c, b'\t' | b',' | b' ');
    let find = |from: usize, ch: u8| {
        b[from.min(b.len())..]
            .iter()
            .position(|&c| c == ch)
            .map(|i| from + i)
    };
    while *pos < b.len() && sep(b[*pos]) {
        *pos += 1;
    }
    if *pos >= b.len() {
        return None;
    }
    let start = *pos;
    let mut parse = start;
    let mut end = start;
    'token: loop {
        while end < b.len() && !sep(b[end]) {
            end += 1;
        }
        loop {
            let Some(open) = find(parse, b'[').filter(|&o| o <= end) else {
                break 'token;
            };
            let Some(close) = find(parse, b']').filter(|&c| c > open) else {
                break 'token;
            };
            if close < end {
                parse = close + 1;
            } else {
                end = close;
                continue 'token;
            }
        }
    }
    *pos = end;
    while *pos < b.len() && sep(b[*pos]) {
        *pos += 1;
    }
    Some((start, end))
}

/// `_parse_range_list`: the comma-separated items of a bracket.
fn range_list(s: &str) -> Result<Vec<Range>, Stop> {
    s.split(',')
        .map(|item| single_range(item.as_bytes()).ok_or(Stop::Invalid))
        .collect()
}

/// `_parse_single_range`: `N`, `A-B` or `A-` (= `A`), numbers read by `strtoul`. As in
/// Slurm, junk after `A` is only noticed when no `B` follows (`5a-7` is 5 to 7).
fn single_range(s: &[u8]) -> Option<Range> {
    use super::cnum::strtoull;
    if s.contains(&b'x') {
        return None;
    }
    let (lo_s, hi_s) = match s.iter().position(|&c| c == b'-') {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    if hi_s.is_some_and(|h| h.first() == Some(&b'-')) {
        return None;
    }
    let lo = strtoull(lo_s);
    if !lo.digits {
        return None;
    }
    let hi = match hi_s {
        Some(h) if !h.is_empty() => {
            let p = strtoull(h);
            if !p.digits || p.end != h.len() {
                return None;
            }
            p.value
        }
        _ if lo.end != lo_s.len() => return None,
        _ => lo.value,
    };
    // Slurm computes the count in unsigned arithmetic, where 0-18446744073709551615 wraps
    // to zero hosts; that is refused here.
    if lo.value > hi || hi - lo.value >= MAX_RANGE {
        return None;
    }
    Some(Range {
        lo: lo.value,
        hi,
        width: lo_s.len(),
    })
}

/// `_push_range_list`: the ranges of `prefix` followed by `ranges`, where a
/// bracket in the prefix multiplies it. A bad bracket further left only drops the hosts
/// it would have named, as in Slurm (which ignores the error of its recursive call).
/// Every prefix and range spends from `budget`; `depth` counts the brackets left of here.
fn push_range_list(
    prefix: &str,
    ranges: &[Range],
    out: &mut Vec<Entry>,
    budget: &mut Budget,
    depth: usize,
) -> Result<(), Stop> {
    let bracket = prefix
        .rfind('[')
        .and_then(|p| prefix[p..].rfind(']').map(|q| (p, p + q)));
    let Some((open, close)) = bracket else {
        let n = ranges.len() as u64;
        budget.spend(n, n * prefix.len() as u64)?;
        out.extend(ranges.iter().map(|r| Entry::Range(prefix.to_string(), *r)));
        return Ok(());
    };
    if depth >= MAX_LEVELS {
        return Err(Stop::TooMany);
    }
    let (before, after) = (&prefix[..open], &prefix[close + 1..]);
    let recurse = before.contains('[');
    let levels = range_list(&prefix[open + 1..close])?;
    let mut count: u64 = 0;
    for level in levels {
        count += level.hi - level.lo + 1;
        if count > MAX_PREFIX_CNT {
            return Err(Stop::Invalid);
        }
        for j in level.lo..=level.hi {
            budget.spend(1, prefix.len() as u64 + 20)?;
            let p = format!("{before}{j:0w$}{after}", w = level.width);
            if recurse {
                match push_range_list(&p, ranges, out, budget, depth + 1) {
                    Err(Stop::TooMany) => return Err(Stop::TooMany),
                    Ok(()) | Err(Stop::Invalid) => {}
                }
            } else {
                let n = ranges.len() as u64;
                budget.spend(n, n * p.len() as u64)?;
                out.extend(ranges.iter().map(|r| Entry::Range(p.clone(), *r)));
            }
        }
    }
    Ok(())
}

/// Splits at commas that are not inside `[...]`: `a[1,2],b` is `a[1,2]` and `b`, as host
/// lists and job id lists (`12,13_[1,3]`) are read.
pub fn split_outside_brackets(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(s).filter(|s| !s.is_empty());
    std::iter::from_fn(move || {
        let text = rest?;
        let mut depth = 0i32;
        let end = text
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '[' => depth += 1,
                    ']' => depth -= 1,
                    _ => {}
                }
                c == ',' && depth == 0
            })
            .map(|(i, _)| i);
        match end {
            Some(i) => {
                rest = Some(&text[i + 1..]);
                Some(&text[..i])
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    })
}

/// Run-length form used by SLURM_TASKS_PER_NODE and SLURM_JOB_CPUS_PER_NODE: `2(x3),1`.
pub fn run_length<T: PartialEq + std::fmt::Display>(values: &[T]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < values.len() {
        let mut n = 1;
        while i + n < values.len() && values[i + n] == values[i] {
            n += 1;
        }
        if n > 1 {
            parts.push(format!("{}(x{n})", values[i]));
        } else {
            parts.push(values[i].to_string());
        }
        i += n;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compresses_ranges_keeping_padding() {
        assert_eq!(
            compress(&["node01", "node02", "node03", "node04", "node07"]),
            "node[01-04,07]"
        );
        assert_eq!(compress(&["node07"]), "node07");
        assert_eq!(compress(&["tux1", "tux2", "tux3", "tux5"]), "tux[1-3,5]");
        assert_eq!(compress(&["a1", "a2", "b3"]), "a[1-2],b3");
        assert_eq!(compress(&["main1", "sub1", "sub2"]), "main1,sub[1-2]");
        assert_eq!(compress(&["vm"]), "vm");
        assert_eq!(compress::<&str>(&[]), "");
    }

    #[test]
    fn ordered_compression_keeps_order() {
        assert_eq!(compress_ordered(&["n1", "n2", "n3"]), "n[1-3]");
        assert_eq!(compress_ordered(&["n1", "n3", "n2"]), "n[1,3,2]");
        assert_eq!(compress_ordered(&["n1", "login", "n2"]), "n1,login,n2");
        assert_eq!(compress_ordered(&["n01", "n02", "m5"]), "n[01-02],m5");
        assert_eq!(compress_ordered(&["vm"]), "vm");
        assert_eq!(compress_ordered::<&str>(&[]), "");
    }

    /// Found by tests/fuzz_options.rs: the largest number a name can end in overflowed
    /// the range test (a panic in debug builds; in release `n0` joined its range).
    #[test]
    fn ordered_compression_at_the_largest_number() {
        let hosts = ["n18446744073709551615", "n0"];
        assert_eq!(compress_ordered(&hosts), "n[18446744073709551615,0]");
        assert_eq!(expand(&compress_ordered(&hosts)).unwrap(), hosts);
    }

    #[test]
    fn expands_what_it_compresses() {
        assert_eq!(
            expand("node[01-03,07],login").unwrap(),
            vec!["node01", "node02", "node03", "node07", "login"]
        );
        assert_eq!(expand("a[1-2]").unwrap(), vec!["a1", "a2"]);
        assert!(expand("a[3-1]").is_none());
        assert!(expand("a[x]").is_none());
    }

    /// Found by tests/fuzz_options.rs: `n[10-999999]` took seconds and `a[0-9999]b[0-9999]`
    /// (10^8 hosts) hung. Slurm refuses a range of more than 65536 hosts; a list of more
    /// than MAX_HOSTS is refused here before anything is listed.
    #[test]
    fn huge_lists_are_refused_at_once() {
        let started = std::time::Instant::now();
        assert!(expand("node[34,37,10-999999]").is_none());
        assert!(expand("n[0-65536]").is_none());
        assert_eq!(expand("n[0-65535]").map(|h| h.len()), Some(65536));
        assert!(expand("a[0-9999]b[0-9999]").is_none());
        assert!(expand("a[0-65535]b[0-65535]c[0-65535]d[1]").is_none());
        assert!(expand("x[0-18446744073709551615]").is_none());
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    /// Found by tests/fuzz_commands.rs: `squeue -w` with `node[31-46]-wnode[31-46]-w...`
    /// (100 kB, thousands of brackets) copied the whole name at every prefix level and
    /// for every host, and ran out of memory (2 GiB) in 5 s; 5000 brackets overflowed the
    /// stack. Names are now budgeted in bytes too, and brackets in levels.
    #[test]
    fn long_names_with_many_brackets_are_refused_at_once() {
        let started = std::time::Instant::now();
        let long = format!("node[31-46]{}", "-wnode[31-46]".repeat(8000));
        assert!(expand(&long).is_none());
        let brackets = format!("{}x[1-2]", "[1]".repeat(5000));
        assert!(expand(&brackets).is_none());
        // A few brackets in a long name are still fine.
        let name = format!("{}[1-2]-n[1-3]", "a".repeat(10_000));
        assert_eq!(expand(&name).map(|h| h.len()), Some(6));
        assert_eq!(
            expand(&format!("{}n[1-2]", "[1]".repeat(64))).map(|h| h.len()),
            Some(2)
        );
        assert!(expand(&format!("{}n[1-2]", "[1]".repeat(65))).is_none());
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    /// Found by tests/fuzz_options.rs: compressing a list of 65536 prefixes scanned every
    /// group for every host (quadratic: it hung).
    #[test]
    fn many_prefixes_compress_in_linear_time() {
        let started = std::time::Instant::now();
        let hosts = expand("n[0-65535].[0-3]").unwrap();
        let text = compress(&hosts);
        assert!(text.starts_with("n0.[0-3],n1.[0-3],"), "{}", &text[..40]);
        assert_eq!(expand(&text).unwrap(), hosts);
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
    }

    /// 22.05.8's `hostlist_create`: blanks and tabs separate too; the last bracket must end
    /// the name; earlier brackets multiply it.
    #[test]
    fn slurm_hostlist_rules() {
        assert_eq!(expand(" a b\tc,,d ").unwrap(), vec!["a", "b", "c", "d"]);
        assert_eq!(expand("n[1, 2]").unwrap(), vec!["n1", "n02"]);
        assert!(expand("n[1-2]x").is_none());
        assert!(expand("n[1-2]x,m").is_none());
        assert_eq!(
            expand("r[1-2]-n[1,3]").unwrap(),
            vec!["r1-n1", "r1-n3", "r2-n1", "r2-n3"]
        );
        assert_eq!(
            expand("a[1-2]b[3]c[01-02]").unwrap(),
            vec!["a1b3c01", "a1b3c02", "a2b3c01", "a2b3c02"]
        );
        // A bad bracket further left drops its hosts, as Slurm ignores that error.
        assert_eq!(expand("a[x]b[1-2]c[1],z").unwrap(), vec!["z"]);
        assert!(expand("a[1]b[x]c[1]").is_none());
        assert!(expand("n[]").is_none());
        assert!(expand("n[1,]").is_none());
        assert!(expand("n[1--2]").is_none());
        assert_eq!(expand("n[5-]").unwrap(), vec!["n5"]);
        assert_eq!(expand("n[+5-6]").unwrap(), vec!["n05", "n06"]);
        // A last `[` without `]`, and a `]` without `[`.
        assert_eq!(expand("abc[12").unwrap(), vec!["abc]"]);
        assert_eq!(expand("[12").unwrap(), vec!["12"]);
        assert_eq!(expand("a]").unwrap(), vec!["a]"]);
        assert_eq!(expand("").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn run_length_form() {
        assert_eq!(run_length(&[2, 2, 2, 1]), "2(x3),1");
        assert_eq!(run_length(&[3, 2, 2]), "3,2(x2)");
        assert_eq!(run_length(&[4]), "4");
    }
}
