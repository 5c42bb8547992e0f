//! Resource limits a job takes from the shell that submitted it (Slurm's
//! PropagateResourceLimits, ALL by default, and `--propagate`): the soft limits of the
//! submitting process, which the job's launcher sets for the batch script.

/// The limits Slurm propagates, in its order (`slurm_rlimits_info.c`).
pub const NAMES: [&str; 10] = [
    "CPU", "FSIZE", "DATA", "STACK", "CORE", "RSS", "NPROC", "NOFILE", "MEMLOCK", "AS",
];

/// One limit to set for the job: the submitter's soft limit (`u64::MAX`: unlimited).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Propagated {
    pub name: String,
    pub soft: u64,
}

/// The limits `--propagate[=LIST]` names, as `parse_rlimits` reads it: `ALL`, `NONE`, or
/// names (`NOFILE` or `RLIMIT_NOFILE`, case as written) separated by commas or blanks.
/// The error is the name that is not one.
pub fn parse_propagate(list: &str) -> Result<Vec<&'static str>, String> {
    match list {
        "ALL" => return Ok(NAMES.to_vec()),
        "NONE" => return Ok(Vec::new()),
        _ => {}
    }
    let mut chosen = Vec::new();
    for word in list.split([',', ' ', '\t', '\n']).filter(|w| !w.is_empty()) {
        let name = word.strip_prefix("RLIMIT_").unwrap_or(word);
        match NAMES.iter().find(|n| **n == name) {
            Some(n) if !chosen.contains(n) => chosen.push(*n),
            Some(_) => {}
            None => return Err(name.to_string()),
        }
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_slurm_reads_them() {
        assert_eq!(parse_propagate("ALL").unwrap().len(), 10);
        assert!(parse_propagate("NONE").unwrap().is_empty());
        assert_eq!(
            parse_propagate("NOFILE,RLIMIT_CORE NOFILE").unwrap(),
            ["NOFILE", "CORE"]
        );
        assert_eq!(parse_propagate("nofile"), Err("nofile".to_string()));
        assert_eq!(parse_propagate("NOFILE,FOO"), Err("FOO".to_string()));
        assert_eq!(parse_propagate("RLIMIT_FOO"), Err("FOO".to_string()));
        assert!(parse_propagate("").unwrap().is_empty());
    }
}
