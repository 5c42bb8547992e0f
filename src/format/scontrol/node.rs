//! `scontrol show node`: 22.05's layout (`slurm_sprint_node_table`).

use super::job::Style;
use crate::format::common::Clock;
use crate::model::NodeRecord;
use crate::model::node_state;

fn or_null(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("(null)")
}

/// One node record. `partitions` lists the partitions holding the node.
pub fn render(node: &NodeRecord, partitions: &[String], style: Style, clock: &Clock) -> String {
    let le = style.line_end();
    let time = |t: Option<i64>| clock.time_str(t, 32);
    let mut o = String::new();
    o.push_str(&format!("NodeName={} ", node.name));
    if !node.arch.is_empty() {
        o.push_str(&format!("Arch={} ", node.arch));
    }
    o.push_str(&format!("CoresPerSocket={} {le}", node.cores_per_socket));
    let load = match node.cpu_load {
        None => "N/A".to_string(),
        Some(l) => format!("{l:.2}"),
    };
    o.push_str(&format!(
        "CPUAlloc={} CPUEfctv={} CPUTot={} CPULoad={load}{le}",
        node.alloc_cpus, node.cpus, node.cpus
    ));
    o.push_str(&format!(
        "AvailableFeatures={}{le}",
        or_null(&node.features)
    ));
    o.push_str(&format!(
        "ActiveFeatures={}{le}",
        or_null(&node.features_active)
    ));
    o.push_str(&format!("Gres={}{le}", or_null(&node.gres)));
    if style.detail
        && let Some(used) = &node.gres_used
    {
        o.push_str(&format!("GresUsed={used}{le}"));
    }
    let mut addr = String::new();
    if !node.address.is_empty() {
        addr.push_str(&format!("NodeAddr={} ", node.address));
    }
    if !node.hostname.is_empty() {
        addr.push_str(&format!("NodeHostName={} ", node.hostname));
    }
    if !node.version.is_empty() {
        addr.push_str(&format!("Version={}", node.version));
    }
    if !addr.is_empty() {
        o.push_str(&addr);
        o.push_str(le);
    }
    if !node.os.is_empty() {
        o.push_str(&format!("OS={} {le}", node.os));
    }
    let free = node
        .free_memory
        .map_or_else(|| "N/A".to_string(), |f| f.to_string());
    o.push_str(&format!(
        "RealMemory={} AllocMem={} FreeMem={free} Sockets={} Boards={}{le}",
        node.real_memory, node.alloc_memory, node.sockets, node.boards
    ));
    let word = node_state::displayed_word(node, true);
    let owner = match node.owner {
        None => "Owner=N/A".to_string(),
        Some(uid) => format!("Owner={uid}({uid})"),
    };
    o.push_str(&format!(
        "State={} ThreadsPerCore={} TmpDisk={} Weight={} {owner} MCS_label={}{le}",
        node_state::complete_name(word),
        node.threads_per_core,
        node.tmp_disk,
        node.weight,
        node.mcs_label.as_deref().unwrap_or("N/A")
    ));
    if !partitions.is_empty() {
        o.push_str(&format!("Partitions={} {le}", partitions.join(",")));
    }
    let boot = match node.boot_time {
        Some(t) if t != 0 => format!("BootTime={}", time(Some(t))),
        _ => "BootTime=None".to_string(),
    };
    let slurmd = match node.slurmd_start_time {
        Some(t) if t != 0 => format!("SlurmdStartTime={}", time(Some(t))),
        _ => "SlurmdStartTime=None".to_string(),
    };
    o.push_str(&format!("{boot} {slurmd}{le}"));
    let delta = style.profile.scontrol.node_resume_after_time;
    o.push_str(&format!("LastBusyTime={}", time(node.last_busy)));
    if delta {
        o.push_str(" ResumeAfterTime=None");
    }
    o.push_str(le);
    o.push_str(&format!(
        "CfgTRES={}{le}",
        node.cfg_tres.as_deref().unwrap_or("(null)")
    ));
    o.push_str(&format!(
        "AllocTRES={}{le}",
        node.alloc_tres.as_deref().unwrap_or("")
    ));
    if !delta {
        o.push_str(&format!("CapWatts=n/a{le}"));
    }
    match (node.current_watts, node.ave_watts) {
        (Some(c), Some(a)) => o.push_str(&format!("CurrentWatts={c} AveWatts={a}{le}")),
        _ => o.push_str(&format!("CurrentWatts=n/s AveWatts=n/s{le}")),
    }
    let ns = |v: Option<String>| v.unwrap_or_else(|| "n/s".to_string());
    // 24.11 dropped the external sensors; their line stays, empty.
    if !delta {
        o.push_str(&format!(
            "ExtSensorsJoules={} ExtSensorsWatts={} ExtSensorsTemp={}",
            ns(node.ext_sensors_joules.map(|v| v.to_string())),
            ns(node.ext_sensors_watts.map(|v| v.to_string())),
            ns(node.ext_sensors_temp.map(|v| v.to_string()))
        ));
    }
    if let Some(reason) = node.reason.as_deref().filter(|r| !r.is_empty()) {
        o.push_str(le);
        for (i, line) in reason.split('\n').filter(|l| !l.is_empty()).enumerate() {
            if i == 0 {
                o.push_str("Reason=");
                o.push_str(line);
                if let Some(t) = node.reason_time.filter(|&t| t != 0) {
                    let who = node.reason_user.clone().unwrap_or_else(|| {
                        node.reason_uid
                            .map_or_else(|| "nobody".into(), |u| u.to_string())
                    });
                    o.push_str(&format!(" [{who}@{}]", time(Some(t))));
                }
            } else {
                o.push_str(le);
                o.push_str("       ");
                o.push_str(line);
            }
        }
    }
    if let Some(c) = &node.comment {
        o.push_str(&format!("{le}Comment={c}"));
    }
    if let Some(e) = &node.extra {
        o.push_str(&format!("{le}Extra={e}"));
    }
    o.push_str(if style.one_liner { "\n" } else { "\n\n" });
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NodeState;

    #[test]
    fn state_reason_and_partitions() {
        let n = NodeRecord {
            name: "n1".into(),
            state: NodeState::Draining,
            cpus: 4,
            alloc_cpus: 2,
            reason: Some("disk\nreplace".into()),
            ..Default::default()
        };
        let s = render(
            &n,
            &["a".into(), "b".into()],
            Style::default(),
            &Clock::default(),
        );
        assert!(s.starts_with(
            "NodeName=n1 CoresPerSocket=0 \n   CPUAlloc=2 CPUEfctv=4 CPUTot=4 CPULoad=N/A\n"
        ));
        assert!(s.contains("   State=MIXED+DRAIN ThreadsPerCore=0"));
        assert!(s.contains("   Partitions=a,b \n"));
        assert!(s.ends_with("ExtSensorsTemp=n/s\n   Reason=disk\n          replace\n\n"));
    }
}
