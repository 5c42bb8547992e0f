//! `scontrol show partition`: 22.05's layout (`slurm_sprint_partition_info`).

use super::job::Style;
use crate::model::time_limit::long_duration;
use crate::model::{PartitionRecord, TimeLimit, hostlist};

fn yes_no(b: bool) -> &'static str {
    if b { "YES" } else { "NO" }
}

/// `secs2time_str` of a minutes value.
fn minutes(m: u32) -> String {
    long_duration(i64::from(m) * 60)
}

/// One partition record.
pub fn render(p: &PartitionRecord, style: Style) -> String {
    let le = style.line_end();
    let mut o = String::new();
    o.push_str(&format!("PartitionName={}{le}", p.name));
    o.push_str(&format!(
        "AllowGroups={}",
        p.allow_groups
            .as_deref()
            .filter(|g| !g.is_empty())
            .unwrap_or("ALL")
    ));
    match (&p.allow_accounts, &p.deny_accounts) {
        (Some(a), _) => o.push_str(&format!(" AllowAccounts={a}")),
        (None, Some(d)) => o.push_str(&format!(" DenyAccounts={d}")),
        (None, None) => o.push_str(" AllowAccounts=ALL"),
    }
    match (&p.allow_qos, &p.deny_qos) {
        (Some(a), _) => o.push_str(&format!(" AllowQos={a}")),
        (None, Some(d)) => o.push_str(&format!(" DenyQos={d}")),
        (None, None) => o.push_str(" AllowQos=ALL"),
    }
    o.push_str(le);
    o.push_str(&format!(
        "AllocNodes={}",
        p.allow_alloc_nodes.as_deref().unwrap_or("ALL")
    ));
    if let Some(a) = &p.alternate {
        o.push_str(&format!(" Alternate={a}"));
    }
    o.push_str(&format!(" Default={}", yes_no(p.is_default)));
    o.push_str(&format!(" QoS={}{le}", p.qos.as_deref().unwrap_or("N/A")));
    let default_time = match p.default_time {
        None => "NONE".to_string(),
        Some(TimeLimit::Infinite) => "UNLIMITED".to_string(),
        Some(TimeLimit::Minutes(m)) => minutes(m),
    };
    let topo = style.profile.scontrol.partition_topo_fields;
    o.push_str(&format!(
        "DefaultTime={default_time} DisableRootJobs={} ExclusiveUser={}{} GraceTime={} Hidden={}{le}",
        yes_no(p.disable_root_jobs),
        yes_no(p.exclusive_user),
        if topo { " ExclusiveTopo=NO" } else { "" },
        p.grace_time,
        yes_no(p.hidden)
    ));
    let max_nodes = p
        .max_nodes
        .map_or_else(|| "UNLIMITED".to_string(), |n| n.to_string());
    let max_time = match p.max_time {
        TimeLimit::Infinite => "UNLIMITED".to_string(),
        TimeLimit::Minutes(m) => minutes(m),
    };
    let max_cpus = p
        .max_cpus_per_node
        .map_or_else(|| "UNLIMITED".to_string(), |n| n.to_string());
    o.push_str(&format!(
        "MaxNodes={max_nodes} MaxTime={max_time} MinNodes={} LLN={} MaxCPUsPerNode={max_cpus}{}{le}",
        p.min_nodes,
        yes_no(p.lln),
        if topo {
            " MaxCPUsPerSocket=UNLIMITED"
        } else {
            ""
        }
    ));
    o.push_str(&format!("Nodes={}{le}", hostlist::compress(&p.nodes)));
    o.push_str(&format!(
        "PriorityJobFactor={} PriorityTier={} RootOnly={} ReqResv={} OverSubscribe={}{le}",
        p.priority_job_factor.unwrap_or(1),
        p.priority_tier.unwrap_or(1),
        yes_no(p.root_only),
        yes_no(p.req_resv),
        p.oversubscribe.as_deref().unwrap_or("NO")
    ));
    let over = p
        .over_time_limit
        .map_or_else(|| "NONE".to_string(), |n| n.to_string());
    o.push_str(&format!(
        "OverTimeLimit={over} PreemptMode={}{le}",
        p.preempt_mode.as_deref().unwrap_or("OFF")
    ));
    let state = match p.availability.as_str() {
        "up" => "UP",
        "down" => "DOWN",
        "inactive" => "INACTIVE",
        "drain" => "DRAIN",
        _ => "UNKNOWN",
    };
    o.push_str(&format!(
        "State={state} TotalCPUs={} TotalNodes={} SelectTypeParameters={}{le}",
        p.total_cpus,
        p.nodes.len(),
        p.select_type_parameters.as_deref().unwrap_or("NONE")
    ));
    o.push_str(&format!(
        "JobDefaults={}{le}",
        p.job_defaults.as_deref().unwrap_or("(null)")
    ));
    match (p.def_mem_per_cpu, p.def_mem_per_node) {
        (Some(c), _) => o.push_str(&format!("DefMemPerCPU={c}")),
        (None, Some(n)) if n != 0 => o.push_str(&format!("DefMemPerNode={n}")),
        _ => o.push_str("DefMemPerNode=UNLIMITED"),
    }
    match (p.max_mem_per_cpu, p.max_mem_per_node) {
        (Some(c), _) => o.push_str(&format!(" MaxMemPerCPU={c}")),
        (None, Some(n)) if n != 0 => o.push_str(&format!(" MaxMemPerNode={n}")),
        _ => o.push_str(" MaxMemPerNode=UNLIMITED"),
    }
    o.push_str(le);
    o.push_str(&format!("TRES={}", p.tres.as_deref().unwrap_or("(null)")));
    if let Some(w) = &p.billing_weights {
        o.push_str(&format!("{le}TRESBillingWeights={w}"));
    }
    o.push_str(if style.one_liner { "\n" } else { "\n\n" });
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_partition_layout() {
        let p = PartitionRecord {
            name: "debug".into(),
            is_default: true,
            availability: "up".into(),
            max_time: TimeLimit::Minutes(1440),
            default_time: Some(TimeLimit::Minutes(60)),
            nodes: vec!["n1".into(), "n2".into()],
            total_cpus: 8,
            tres: Some("cpu=8,mem=16G,node=2".into()),
            ..Default::default()
        };
        let s = render(&p, Style::default());
        assert_eq!(
            s,
            "PartitionName=debug\n   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL\n   AllocNodes=ALL Default=YES QoS=N/A\n   DefaultTime=01:00:00 DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO\n   MaxNodes=UNLIMITED MaxTime=1-00:00:00 MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED\n   Nodes=n[1-2]\n   PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO\n   OverTimeLimit=NONE PreemptMode=OFF\n   State=UP TotalCPUs=8 TotalNodes=2 SelectTypeParameters=NONE\n   JobDefaults=(null)\n   DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED\n   TRES=cpu=8,mem=16G,node=2\n\n"
        );
        let one = render(
            &p,
            Style {
                one_liner: true,
                ..Style::default()
            },
        );
        assert!(one.starts_with("PartitionName=debug AllowGroups=ALL "));
        assert!(one.ends_with("TRES=cpu=8,mem=16G,node=2\n"));
    }
}
