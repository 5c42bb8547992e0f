//! Slurm hostlists: `node[01-04,07]` compression and expansion (src/common/hostlist.c).

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
                if let Some(i) = groups.iter().position(|(p, w, _)| p == prefix && fits(*w)) {
                    groups[i].2.push(value);
                } else {
                    let width = if padded { num.len() } else { 0 };
                    groups.push((prefix.to_string(), width, vec![value]));
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
            && tail.hi + 1 == value
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

/// Expands `a[1-3,5],b` into host names. Returns None on malformed input.
pub fn expand(list: &str) -> Option<Vec<String>> {
    let mut hosts = Vec::new();
    for item in split_outside_brackets(list.trim()).filter(|i| !i.is_empty()) {
        expand_item(item, &mut hosts)?;
    }
    Some(hosts)
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

fn expand_item(item: &str, hosts: &mut Vec<String>) -> Option<()> {
    let Some(open) = item.find('[') else {
        if item.contains(']') {
            return None;
        }
        hosts.push(item.to_string());
        return Some(());
    };
    let close = open + item[open..].find(']')?;
    let prefix = &item[..open];
    let suffix = &item[close + 1..];
    for range in item[open + 1..close].split(',') {
        let (a, b) = match range.split_once('-') {
            Some((a, b)) => (a, b),
            None => (range, range),
        };
        let width = a.len();
        let start: u64 = a.parse().ok()?;
        let end: u64 = b.parse().ok()?;
        if end < start || end - start > 1_000_000 {
            return None;
        }
        for v in start..=end {
            let mut expanded = Vec::new();
            expand_item(&format!("{prefix}{v:0width$}{suffix}"), &mut expanded)?;
            hosts.extend(expanded);
        }
    }
    Some(())
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

    #[test]
    fn run_length_form() {
        assert_eq!(run_length(&[2, 2, 2, 1]), "2(x3),1");
        assert_eq!(run_length(&[3, 2, 2]), "3,2(x2)");
        assert_eq!(run_length(&[4]), "4");
    }
}
