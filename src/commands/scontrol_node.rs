//! `scontrol update NodeName=...` (src/scontrol/update_node.c in Slurm 22.05, and 24.11's
//! few additions): the words
//! read as scontrol reads them, its own refusals (a word without `=`, an unknown field, a
//! state it does not know, a drain without a reason, nothing to change) with its texts,
//! then one request to the controller, whose refusal is `slurm_update error: ...`.

use crate::backend::{BackendError, Cluster};
use crate::cli::Invocation;
use crate::model::cnum::strncasecmp_eq;
use crate::model::{NodeStateChange, NodeUpdate};

/// `xstrncasecmp(tag, name, MAX(tag_len, min))`.
fn is(tag: &str, name: &str, min: usize) -> bool {
    strncasecmp_eq(tag, name, tag.len().max(min))
}

/// Why scontrol stopped before asking the controller; it has said so already.
struct Stop;

/// The state word of `State=`, in the order update_node.c tests it. The node state names
/// after its own list (`node_state_string` of the base states) are what slurmctld knows
/// as requests only for DOWN and IDLE.
fn state_of(val: &str) -> Option<NodeStateChange> {
    let v = |name: &str, min: usize| strncasecmp_eq(val, name, val.len().max(min));
    use NodeStateChange as S;
    Some(if v("NoResp", 3) || v("CANCEL_REBOOT", 3) {
        S::Unmodelled
    } else if v("DRAIN", 3) {
        S::Drain
    } else if v("FAIL", 3) {
        S::Fail
    } else if v("FUTURE", 3) {
        S::Unmodelled
    } else if v("RESUME", 3) {
        S::Resume
    } else if v("POWER_DOWN_ASAP", 12)
        || v("POWER_DOWN_FORCE", 12)
        || v("POWER_DOWN", 7)
        || v("POWER_UP", 7)
    {
        // Power saving is not configured: slurmctld refuses these.
        S::Invalid
    } else if v("UNDRAIN", 3) {
        S::Undrain
    } else if v("DOWN", 3) {
        S::Down
    } else if v("IDLE", 3) {
        S::Idle
    } else if v("ALLOCATED", 3) {
        S::Allocated
    } else if ["UNKNOWN", "ERROR", "MIXED"].iter().any(|n| v(n, 3)) {
        S::Invalid
    } else {
        return None;
    })
}

/// Reads the words into a request, as `scontrol_update_node` does.
fn parse(inv: &mut Invocation<'_>, args: &[String]) -> Result<NodeUpdate, Stop> {
    let mut update = NodeUpdate::default();
    let mut update_cnt = 0;
    let newer = inv.profile.scontrol.node_update_24_11;
    let mut resume_after = false;
    for arg in args {
        let Some((tag, val)) = arg.split_once('=') else {
            inv.error(&format!("Invalid input: {arg}  Request aborted"));
            if !newer {
                // 22.05's caller reports the -1 it returns, with errno still 0.
                let _ = writeln!(inv.err, "slurm_update error: No error");
            }
            return Err(Stop);
        };
        if is(tag, "NodeAddr", 5)
            || is(tag, "NodeHostName", 5)
            || is(tag, "ActiveFeatures", 3)
            || is(tag, "CpuBind", 7)
            || is(tag, "Extra", 1)
            || is(tag, "Features", 1)
            || is(tag, "AvailableFeatures", 3)
            || is(tag, "Gres", 1)
            || is(tag, "Comment", 2)
        {
            update.unmodelled.push(arg.clone());
            update_cnt += 1;
        } else if is(tag, "NodeName", 1) {
            update.names = val.to_string();
        } else if is(tag, "Weight", 1) {
            if val.parse::<u32>().is_ok() {
                update.unmodelled.push(arg.clone());
                update_cnt += 1;
            } else if newer {
                inv.error(&format!("Invalid value {arg} for Weight"));
                return Err(Stop);
            } else {
                // 22.05 says so and goes on without the field.
                inv.error(&format!("Weight value ({val}) is not a valid number"));
            }
        } else if newer && (is(tag, "InstanceId", 9) || is(tag, "InstanceType", 9)) {
            update.unmodelled.push(arg.clone());
            update_cnt += 1;
        } else if newer && is(tag, "ResumeAfter", 1) {
            if val != "-1" && val.parse::<u32>().is_err() {
                inv.error(&format!("Invalid value {arg} for ResumeAfter"));
                return Err(Stop);
            }
            resume_after = true;
            update.unmodelled.push(arg.clone());
            update_cnt += 1;
        } else if is(tag, "Reason", 1) {
            let r = val.strip_prefix('"').unwrap_or(val);
            let r = r.strip_suffix('"').unwrap_or(r);
            update.reason = Some(r.to_string());
            update_cnt += 1;
        } else if is(tag, "State", 1) {
            match state_of(val) {
                Some(s) => update.state = Some(s),
                None => {
                    let _ = write!(
                        inv.err,
                        "Invalid input: {arg}\nRequest aborted\nValid states are: NoResp DRAIN FAIL FUTURE RESUME POWER_DOWN POWER_UP UNDRAIN\nNot all states are valid given a node's prior state\n"
                    );
                    return Err(Stop);
                }
            }
            update_cnt += 1;
        } else {
            let _ = write!(
                inv.err,
                "Update of this parameter is not supported: {arg}\nRequest aborted\n"
            );
            return Err(Stop);
        }
    }
    if matches!(
        update.state,
        Some(NodeStateChange::Down | NodeStateChange::Drain | NodeStateChange::Fail)
    ) && update.reason.as_deref().is_none_or(str::is_empty)
    {
        let _ = writeln!(
            inv.err,
            "You must specify a reason when DOWNING or DRAINING a node. Request denied"
        );
        return Err(Stop);
    }
    if resume_after
        && !matches!(
            update.state,
            Some(NodeStateChange::Down | NodeStateChange::Drain)
        )
    {
        let _ = writeln!(
            inv.err,
            "You can only specify a resume time when DOWNING or DRAINING a node. Request denied"
        );
        return Err(Stop);
    }
    if update_cnt == 0 {
        let _ = writeln!(inv.err, "No changes specified");
        return Err(Stop);
    }
    Ok(update)
}

/// `scontrol update NodeName=...`: the exit status scontrol ends with.
pub fn update_nodes(inv: &mut Invocation<'_>, cluster: &dyn Cluster, args: &[String]) -> i32 {
    let Ok(update) = parse(inv, args) else {
        return 1;
    };
    match cluster.update_nodes(&update, inv.user.uid) {
        Ok(()) => 0,
        Err(e) => {
            let text = match e {
                BackendError::Slurm(errno) => errno.text().to_string(),
                other => other.to_string(),
            };
            let _ = writeln!(inv.err, "slurm_update error: {text}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_are_read_by_their_prefixes() {
        use NodeStateChange as S;
        for (word, want) in [
            ("drain", Some(S::Drain)),
            ("DRA", Some(S::Drain)),
            ("DR", None),
            ("resume", Some(S::Resume)),
            ("undrain", Some(S::Undrain)),
            ("down", Some(S::Down)),
            ("fail", Some(S::Fail)),
            ("idle", Some(S::Idle)),
            ("ALLOC", Some(S::Allocated)),
            ("mixed", Some(S::Invalid)),
            ("power_down", Some(S::Invalid)),
            ("NoResp", Some(S::Unmodelled)),
            ("future", Some(S::Unmodelled)),
            ("", None),
            ("BOGUS", None),
        ] {
            assert_eq!(state_of(word), want, "{word}");
        }
    }
}
