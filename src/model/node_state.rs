//! A node's full state word as slurmctld keeps it (base state + flag bits), and the three
//! ways Slurm names it: `node_state_string` (sinfo %T), `node_state_string_compact`
//! (sinfo %t) and `node_state_string_complete` (scontrol `State=`).

use super::job::{NodeRecord, NodeState};

/// Base states (`enum node_states`).
pub const UNKNOWN: u32 = 0;
pub const DOWN: u32 = 1;
pub const IDLE: u32 = 2;
pub const ALLOCATED: u32 = 3;
pub const ERROR: u32 = 4;
pub const MIXED: u32 = 5;
pub const FUTURE: u32 = 6;
pub const BASE_MASK: u32 = 0x0000_000f;

/// Flag bits (`NODE_STATE_*` in slurm.h).
pub const NET: u32 = 1 << 4;
pub const RES: u32 = 1 << 5;
pub const CLOUD: u32 = 1 << 7;
pub const RESUME: u32 = 1 << 8;
pub const DRAIN: u32 = 1 << 9;
pub const COMPLETING: u32 = 1 << 10;
pub const NO_RESPOND: u32 = 1 << 11;
pub const POWERED_DOWN: u32 = 1 << 12;
pub const FAIL: u32 = 1 << 13;
pub const POWERING_UP: u32 = 1 << 14;
pub const MAINT: u32 = 1 << 15;
pub const REBOOT_REQUESTED: u32 = 1 << 16;
pub const REBOOT_CANCEL: u32 = 1 << 17;
pub const POWERING_DOWN: u32 = 1 << 18;
pub const DYNAMIC_FUTURE: u32 = 1 << 19;
pub const REBOOT_ISSUED: u32 = 1 << 20;
pub const PLANNED: u32 = 1 << 21;
pub const INVALID_REG: u32 = 1 << 22;
pub const POWER_DOWN: u32 = 1 << 23;
pub const POWER_UP: u32 = 1 << 24;
pub const DYNAMIC_NORM: u32 = 1 << 26;

/// The state word of a node record: its [`NodeState`] mapped onto Slurm's base state and
/// drain flag, plus any extra flags the backend set.
pub fn state_word(node: &NodeRecord) -> u32 {
    let base = match node.state {
        NodeState::Idle => IDLE,
        NodeState::Mixed => MIXED,
        NodeState::Allocated => ALLOCATED,
        NodeState::Down => DOWN,
        NodeState::Drained => IDLE | DRAIN,
        NodeState::Draining => ALLOCATED | DRAIN,
    };
    base | (node.state_flags & !BASE_MASK)
}

/// The state word as clients show it: a node that is neither draining nor fully busy
/// but has some CPUs allocated is MIXED (squeue/sinfo/scontrol compute this client-side).
pub fn displayed_word(node: &NodeRecord, for_scontrol: bool) -> u32 {
    let word = state_word(node);
    if !for_scontrol && word & DRAIN != 0 {
        return word;
    }
    let idle = node.cpus.saturating_sub(node.alloc_cpus);
    if idle != 0 && idle != node.cpus {
        (word & !BASE_MASK) | MIXED
    } else {
        word
    }
}

/// `node_state_string`: `IDLE`, `ALLOCATED+`, `DRAINING`, `DOWN*`, ...
pub fn long_name(word: u32) -> String {
    state_string(word, &LONG)
}

/// `node_state_string_compact`: `IDLE`, `ALLOC`, `DRNG`, `MIX`, ...
pub fn compact_name(word: u32) -> String {
    state_string(word, &COMPACT)
}

/// `node_state_string_complete`: the base name followed by `+FLAG` for every flag.
pub fn complete_name(word: u32) -> String {
    let mut s = base_name(word).to_string();
    let mut flags = word & !BASE_MASK;
    while flags != 0 {
        match FLAG_NAMES.iter().find(|(bit, _)| flags & bit != 0) {
            Some((bit, name)) => {
                s.push('+');
                s.push_str(name);
                flags &= !bit;
            }
            None => {
                s.push_str("+?");
                flags &= flags - 1;
            }
        }
    }
    s
}

fn base_name(word: u32) -> &'static str {
    match word & BASE_MASK {
        DOWN => "DOWN",
        IDLE => "IDLE",
        ALLOCATED => "ALLOCATED",
        ERROR => "ERROR",
        MIXED => "MIXED",
        FUTURE => "FUTURE",
        UNKNOWN => "UNKNOWN",
        _ => "INVALID",
    }
}

/// Flag names in the order `node_state_flag_string` tests them.
const FLAG_NAMES: [(u32, &str); 20] = [
    (CLOUD, "CLOUD"),
    (COMPLETING, "COMPLETING"),
    (DRAIN, "DRAIN"),
    (DYNAMIC_FUTURE, "DYNAMIC_FUTURE"),
    (DYNAMIC_NORM, "DYNAMIC_NORM"),
    (INVALID_REG, "INVALID_REG"),
    (FAIL, "FAIL"),
    (MAINT, "MAINTENANCE"),
    (POWER_DOWN, "POWER_DOWN"),
    (POWER_UP, "POWER_UP"),
    (NET, "PERFCTRS"),
    (POWERED_DOWN, "POWERED_DOWN"),
    (REBOOT_REQUESTED, "REBOOT_REQUESTED"),
    (REBOOT_ISSUED, "REBOOT_ISSUED"),
    (RES, "RESERVED"),
    (RESUME, "RESUME"),
    (NO_RESPOND, "NOT_RESPONDING"),
    (PLANNED, "PLANNED"),
    (POWERING_UP, "POWERING_UP"),
    (POWERING_DOWN, "POWERING_DOWN"),
];

/// The words that differ between the long and compact spellings.
struct Names {
    maint: &'static str,
    reboot: &'static str,
    draining: &'static str,
    drained: &'static str,
    failing: &'static str,
    reboot_issued_exact: &'static str,
    reboot_cancel: &'static str,
    power_down: &'static str,
    power_up: &'static str,
    powering_down: &'static str,
    powered_down: &'static str,
    powering_up: &'static str,
    allocated: &'static str,
    completing: &'static str,
    perfctrs: &'static str,
    reserved: &'static str,
    mixed: &'static str,
    future: &'static str,
    unknown: &'static str,
    planned: &'static str,
    resume: &'static str,
    /// node_state_string compares the whole word against single flags (a node that is
    /// only POWERED_DOWN); the compact form compares the base only, so never matches.
    exact_flag_words: bool,
}

const LONG: Names = Names {
    maint: "MAINT",
    reboot: "REBOOT",
    draining: "DRAINING",
    drained: "DRAINED",
    failing: "FAILING",
    reboot_issued_exact: "REBOOT_ISSUED",
    reboot_cancel: "CANCEL_REBOOT",
    power_down: "POWER_DOWN",
    power_up: "POWER_UP",
    powering_down: "POWERING_DOWN",
    powered_down: "POWERED_DOWN",
    powering_up: "POWERING_UP",
    allocated: "ALLOCATED",
    completing: "COMPLETING",
    perfctrs: "PERFCTRS",
    reserved: "RESERVED",
    mixed: "MIXED",
    future: "FUTURE",
    unknown: "UNKNOWN",
    planned: "PLANNED",
    resume: "RESUME",
    exact_flag_words: true,
};

const COMPACT: Names = Names {
    maint: "MAINT",
    reboot: "BOOT",
    draining: "DRNG",
    drained: "DRAIN",
    failing: "FAILG",
    reboot_issued_exact: "BOOT^",
    reboot_cancel: "CANC_R",
    power_down: "POW_DN",
    power_up: "POW_UP",
    powering_down: "POWRING_DN",
    powered_down: "POWERED_DN",
    powering_up: "POWERING_UP",
    allocated: "ALLOC",
    completing: "COMP",
    perfctrs: "NPC",
    reserved: "RESV",
    mixed: "MIX",
    future: "FUTR",
    unknown: "UNK",
    planned: "PLND",
    resume: "RESM",
    exact_flag_words: false,
};

/// The one-character suffix Slurm appends for power/maintenance/reboot/responding flags,
/// tested in Slurm's order.
fn suffix(word: u32) -> &'static str {
    const ORDER: [(u32, &str); 8] = [
        (MAINT, "$"),
        (REBOOT_ISSUED, "^"),
        (REBOOT_REQUESTED, "@"),
        (POWERING_UP, "#"),
        (POWERING_DOWN, "%"),
        (POWERED_DOWN, "~"),
        (POWER_DOWN, "!"),
        (NO_RESPOND, "*"),
    ];
    ORDER
        .iter()
        .find(|(bit, _)| word & bit != 0)
        .map_or("", |(_, s)| s)
}

fn with_suffix(name: &str, word: u32) -> String {
    format!("{name}{}", suffix(word))
}

fn state_string(word: u32, n: &Names) -> String {
    let base = word & BASE_MASK;
    let has = |bit: u32| word & bit != 0;
    if has(INVALID_REG) {
        return "INVAL".to_string();
    }
    if has(MAINT) && !(has(DRAIN) || matches!(base, ALLOCATED | DOWN | MIXED)) {
        return if has(NO_RESPOND) {
            format!("{}*", n.maint)
        } else {
            n.maint.to_string()
        };
    }
    if (has(REBOOT_REQUESTED) || has(REBOOT_ISSUED)) && !matches!(base, ALLOCATED | MIXED) {
        return if has(REBOOT_ISSUED) {
            format!("{}^", n.reboot)
        } else if has(NO_RESPOND) {
            format!("{}*", n.reboot)
        } else {
            n.reboot.to_string()
        };
    }
    if has(DRAIN) {
        let name = if has(COMPLETING) || matches!(base, ALLOCATED | MIXED) {
            n.draining
        } else {
            n.drained
        };
        return with_suffix(name, word);
    }
    if has(FAIL) {
        let name = if has(COMPLETING) || base == ALLOCATED {
            n.failing
        } else {
            "FAIL"
        };
        return if has(NO_RESPOND) {
            format!("{name}*")
        } else {
            name.to_string()
        };
    }
    // Slurm compares the whole word (not the base) against these single flags.
    match if n.exact_flag_words { word } else { base } {
        REBOOT_ISSUED => return n.reboot_issued_exact.to_string(),
        REBOOT_CANCEL => return n.reboot_cancel.to_string(),
        CLOUD => return "CLOUD".to_string(),
        POWER_DOWN => return n.power_down.to_string(),
        POWER_UP => return n.power_up.to_string(),
        POWERING_DOWN => return n.powering_down.to_string(),
        POWERED_DOWN => return n.powered_down.to_string(),
        POWERING_UP => return n.powering_up.to_string(),
        _ => {}
    }
    match base {
        DOWN => return with_suffix("DOWN", word),
        ALLOCATED => {
            let s = suffix(word);
            if s.is_empty() && has(COMPLETING) {
                return format!("{}+", n.allocated);
            }
            return format!("{}{s}", n.allocated);
        }
        _ => {}
    }
    if has(COMPLETING) {
        return with_suffix(n.completing, word);
    }
    match base {
        IDLE => {
            let s = suffix(word);
            if !s.is_empty() {
                return format!("IDLE{s}");
            }
            if has(NET) {
                return n.perfctrs.to_string();
            }
            if has(RES) {
                return n.reserved.to_string();
            }
            if has(PLANNED) {
                return n.planned.to_string();
            }
            "IDLE".to_string()
        }
        MIXED => {
            let s = suffix(word);
            if !s.is_empty() {
                return format!("{}{s}", n.mixed);
            }
            if has(PLANNED) {
                return format!("{}-", n.mixed);
            }
            n.mixed.to_string()
        }
        FUTURE => with_suffix(n.future, word),
        _ if has(RESUME) => n.resume.to_string(),
        UNKNOWN => {
            if has(NO_RESPOND) {
                format!("{}*", n.unknown)
            } else {
                n.unknown.to_string()
            }
        }
        _ => "?".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_common_states() {
        assert_eq!(long_name(IDLE), "IDLE");
        assert_eq!(compact_name(IDLE), "IDLE");
        assert_eq!(long_name(ALLOCATED), "ALLOCATED");
        assert_eq!(compact_name(ALLOCATED), "ALLOC");
        assert_eq!(compact_name(MIXED), "MIX");
        assert_eq!(long_name(ALLOCATED | DRAIN), "DRAINING");
        assert_eq!(compact_name(ALLOCATED | DRAIN), "DRNG");
        assert_eq!(long_name(IDLE | DRAIN), "DRAINED");
        assert_eq!(compact_name(IDLE | DRAIN), "DRAIN");
        assert_eq!(long_name(DOWN | NO_RESPOND), "DOWN*");
        assert_eq!(compact_name(ALLOCATED | COMPLETING), "ALLOC+");
        assert_eq!(compact_name(IDLE | COMPLETING), "COMP");
        assert_eq!(compact_name(IDLE | POWERED_DOWN), "IDLE~");
        assert_eq!(compact_name(MIXED | PLANNED), "MIX-");
        assert_eq!(compact_name(IDLE | MAINT), "MAINT");
    }

    #[test]
    fn complete_name_lists_flags() {
        assert_eq!(complete_name(ALLOCATED | DRAIN), "ALLOCATED+DRAIN");
        assert_eq!(complete_name(IDLE), "IDLE");
        assert_eq!(
            complete_name(DOWN | DRAIN | NO_RESPOND),
            "DOWN+DRAIN+NOT_RESPONDING"
        );
    }
}
