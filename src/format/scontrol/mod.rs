//! `scontrol show` renderers: jobs, nodes, partitions, the configuration summary and
//! host lists.

pub mod job;
pub mod node;
pub mod partition;

pub use job::Style;

impl Style {
    /// What separates `key=value` groups: a space on one line, else a new indented line.
    pub fn line_end(self) -> &'static str {
        if self.one_liner { " " } else { "\n   " }
    }
}

/// `scontrol show config`: the header and `%-23s = %s` lines. Only the settings the
/// backend states (plus the cluster name and version) are printed, sorted by name.
pub fn config(
    time: &str,
    cluster_name: &str,
    release: crate::model::release::Release,
    entries: &[(String, String)],
) -> String {
    let mut all: Vec<(String, String)> = vec![
        ("ClusterName".into(), cluster_name.into()),
        ("SLURM_VERSION".into(), release.text()),
    ];
    for (k, v) in entries {
        if !all.iter().any(|(x, _)| x == k) {
            all.push((k.clone(), v.clone()));
        }
    }
    all.sort_by_key(|(k, _)| k.to_lowercase());
    let mut o = format!("Configuration data as of {time}\n");
    for (k, v) in all {
        o.push_str(&format!("{k:<23} = {v}\n"));
    }
    o.push('\n');
    o
}
