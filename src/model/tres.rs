//! TRES lists (`cpu=2,mem=2G,node=1,billing=2,gres/gpu=2`): reading counts back out and
//! re-rendering them the way sacct does (sorted by name, memory through `convert_num_unit`).

use super::units::{Convert, Unit, convert_num_unit};

/// The `name=value` pairs of a TRES string, in order; malformed items are skipped.
pub fn entries(tres: &str) -> Vec<(&str, &str)> {
    tres.split(',')
        .filter_map(|item| item.split_once('='))
        .collect()
}

/// The count of one TRES (`cpu`, `node`, `billing`, `gres/gpu`); memory-like values with a
/// unit suffix are returned in MB.
pub fn count(tres: &str, name: &str) -> Option<u64> {
    entries(tres)
        .into_iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, v)| parse_value(v))
}

/// A TRES value: a plain number, or a size with a K/M/G/T/P suffix (returned in MB).
pub fn parse_value(v: &str) -> Option<u64> {
    let (num, mult) = match v.chars().last()? {
        'K' => (&v[..v.len() - 1], 1.0 / 1024.0),
        'M' => (&v[..v.len() - 1], 1.0),
        'G' => (&v[..v.len() - 1], 1024.0),
        'T' => (&v[..v.len() - 1], 1024.0 * 1024.0),
        'P' => (&v[..v.len() - 1], 1024.0 * 1024.0 * 1024.0),
        _ => (v, 1.0),
    };
    let n: f64 = num.parse().ok()?;
    Some((n * mult).round() as u64)
}

/// sacct's rendering (`slurmdb_make_tres_string_from_simple`): entries sorted by their text,
/// memory-like values converted from MB as `convert` says.
pub fn sacct_string(tres: &str, convert: Convert) -> String {
    let mut items: Vec<String> = entries(tres)
        .into_iter()
        .map(|(name, value)| {
            let is_size = name == "mem" || name.starts_with("bb");
            let shown = match (is_size, parse_value(value)) {
                (true, Some(mb)) => convert_num_unit(mb as f64, Unit::Mega, convert),
                _ => value.to_string(),
            };
            format!("{name}={shown}")
        })
        .collect();
    items.sort();
    items.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_sizes() {
        let t = "cpu=2,mem=2G,node=1,billing=2,gres/gpu=2";
        assert_eq!(count(t, "cpu"), Some(2));
        assert_eq!(count(t, "mem"), Some(2048));
        assert_eq!(count(t, "gres/gpu"), Some(2));
        assert_eq!(count(t, "energy"), None);
        assert_eq!(parse_value("2.50G"), Some(2560));
        assert_eq!(parse_value("16000M"), Some(16000));
    }

    #[test]
    fn sacct_sorts_by_name() {
        assert_eq!(
            sacct_string("cpu=1,mem=1G,node=1,billing=1", Convert::Exact),
            "billing=1,cpu=1,mem=1G,node=1"
        );
        assert_eq!(
            sacct_string("cpu=1,mem=1G,node=1", Convert::No),
            "cpu=1,mem=1024M,node=1"
        );
    }
}
