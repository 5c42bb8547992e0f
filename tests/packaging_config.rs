//! The example /etc/bai-slurm/config.toml the packages install documents every key of the
//! configuration, commented out. Uncommented, it must parse (unknown keys are errors), and
//! every key of the configuration must appear in it.

use bai_slurm::config::Config;

const EXAMPLE: &str = include_str!("../packaging/config.toml");

/// Lines of the form `#key = ...` or `#[table]` are settings; `# text` is explanation.
fn uncommented() -> String {
    EXAMPLE
        .lines()
        .map(|l| match l.strip_prefix('#') {
            Some(rest) if rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '[') => rest,
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn example_config_is_all_commented_out() {
    let empty: Config = toml::from_str(EXAMPLE).expect("parses as it is");
    assert!(empty.cluster_name.is_none() && empty.partitions.is_empty());
    assert!(empty.local.state_dir.is_none() && empty.backendai.endpoint.is_none());
}

#[test]
fn example_config_uncommented_parses_and_covers_every_key() {
    let text = uncommented();
    let c: Config = toml::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(c.cluster_name.as_deref(), Some("mycluster"));
    assert_eq!(c.partitions.len(), 1);
    let p = &c.partitions[0];
    assert!(p.default && p.resource_group.is_some() && p.default_image.is_some());
    assert!(p.max_time.is_some() && p.default_time.is_some() && p.def_mem_per_cpu.is_some());
    let l = &c.local;
    assert!(l.state_dir.is_some() && l.node_name.is_some() && l.cpus.is_some());
    assert!(l.memory_mb.is_some() && l.kill_wait.is_some() && l.idle_exit.is_some());
    assert!(l.max_array_size.is_some() && l.first_job_id.is_some() && l.nodes.is_some());
    assert!(l.gpus.is_some() && l.def_mem_per_cpu.is_some());
    let b = &c.backendai;
    assert!(b.endpoint.is_some() && b.domain.is_some() && b.group.is_some());
    assert!(b.skip_sslcert_validation.is_some() && c.backend.is_some());
    assert!(b.keyring.is_some());
    // Keys are documented, not set: the secret ones only by name, never with a value.
    assert!(b.access_key.is_none() && b.secret_key.is_none());
}
