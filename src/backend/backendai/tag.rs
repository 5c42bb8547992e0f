//! The session tag: what squeue shows of a job whose full metadata ([`JobMeta`]) is not
//! at hand yet (a job submitted on another login node, still running): its owner, time
//! limit, deferred start (`--begin`) and name, in at most 64 characters.

use crate::backend::HoldKind;
use crate::launcher::meta::JobMeta;
use crate::model::TimeLimit;

/// What the session's tag says about its job: enough for squeue's usual columns when the
/// full metadata is not at hand (a job submitted on another login node, still running).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagFacts {
    pub uid: u32,
    pub time_limit: TimeLimit,
    /// `--begin`: Backend.AI 26.x shows no session the start it was asked for (its
    /// `starts_at` is the actual start), so the tag keeps it for squeue's `BeginTime`.
    pub begin: Option<i64>,
    /// An array's throttle that holds tasks back (`%N`): its tasks are chained, and one
    /// pending task cannot be cancelled alone.
    pub throttle: Option<u32>,
    /// A hold (`sbatch -H`, `scontrol hold`): the session waits with a far `startsAt`.
    pub hold: Option<HoldKind>,
    /// Held by `scontrol requeuehold` (squeue: "job requeued in held state").
    pub requeue_held: bool,
    /// Waits for a job its `after` dependency names to start: the session waits with a
    /// far `startsAt`, as a held one, until a view makes it again.
    pub awaits_start: bool,
    /// The job's submission, when its session was made later (a hold or a release makes
    /// the session again).
    pub submit: Option<i64>,
    pub name: String,
}

/// The longest tag Backend.AI keeps.
pub const MAX_LEN: usize = 64;

/// The session tag, at most 64 characters: `slurm:<uid>:<minutes or U>[%<throttle>]` then
/// optional fields `:<begin epoch>`, `:h`, `:H` or `:R` (a user's, an administrator's, a
/// requeue's hold), `:w` (awaits an `after` job's start),
/// `:s<submit epoch>`, then ` <job name>` (the name cut to fit).
pub fn tag(meta: &JobMeta) -> String {
    render(&TagFacts {
        uid: meta.uid,
        time_limit: meta.spec.time_limit.unwrap_or(TimeLimit::Infinite),
        begin: meta.spec.begin,
        throttle: meta.spec.array.as_ref().and_then(|a| a.limiting_throttle()),
        hold: meta.spec.hold.then_some(HoldKind::User),
        requeue_held: false,
        awaits_start: super::depends::awaits_a_start(&meta.spec),
        submit: None,
        name: meta.spec.name.clone(),
    })
}

pub fn render(f: &TagFacts) -> String {
    let limit = match f.time_limit {
        TimeLimit::Minutes(m) => m.to_string(),
        TimeLimit::Infinite => "U".to_string(),
    };
    let mut t = format!("slurm:{}:{limit}", f.uid);
    if let Some(n) = f.throttle {
        t.push_str(&format!("%{n}"));
    }
    if let Some(b) = f.begin {
        t.push_str(&format!(":{b}"));
    }
    match f.hold {
        Some(HoldKind::User) if f.requeue_held => t.push_str(":R"),
        Some(HoldKind::User) => t.push_str(":h"),
        Some(HoldKind::Admin) => t.push_str(":H"),
        None => {}
    }
    if f.awaits_start {
        t.push_str(":w");
    }
    if let Some(s) = f.submit {
        t.push_str(&format!(":s{s}"));
    }
    t.push(' ');
    t.push_str(&f.name);
    if t.len() > MAX_LEN {
        let mut cut = MAX_LEN;
        while !t.is_char_boundary(cut) {
            cut -= 1;
        }
        t.truncate(cut);
    }
    t
}

pub fn parse_tag(tag: &str) -> Option<TagFacts> {
    let (head, name) = tag.strip_prefix("slurm:")?.split_once(' ')?;
    let mut fields = head.split(':');
    let uid = fields.next()?.parse().ok()?;
    let limit_field = fields.next()?;
    let (limit, throttle) = match limit_field.split_once('%') {
        Some((l, t)) => (l, Some(t.parse().ok()?)),
        None => (limit_field, None),
    };
    let mut facts = TagFacts {
        throttle,
        uid,
        time_limit: match limit {
            "U" => TimeLimit::Infinite,
            m => TimeLimit::Minutes(m.parse().ok()?),
        },
        begin: None,
        hold: None,
        requeue_held: false,
        awaits_start: false,
        submit: None,
        name: name.to_string(),
    };
    for field in fields {
        match field {
            "h" => facts.hold = Some(HoldKind::User),
            "H" => facts.hold = Some(HoldKind::Admin),
            "R" => {
                facts.hold = Some(HoldKind::User);
                facts.requeue_held = true;
            }
            "w" => facts.awaits_start = true,
            _ => match field.strip_prefix('s') {
                Some(at) => facts.submit = Some(at.parse().ok()?),
                None => facts.begin = Some(field.parse().ok()?),
            },
        }
    }
    Some(facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tag_carries_owner_limit_and_name() {
        let mut meta = JobMeta {
            uid: 1001,
            ..Default::default()
        };
        meta.spec.name = "train model".into();
        meta.spec.time_limit = Some(TimeLimit::Minutes(90));
        let t = tag(&meta);
        assert_eq!(t, "slurm:1001:90 train model");
        let f = parse_tag(&t).unwrap();
        assert_eq!(
            (f.uid, f.time_limit, f.name.as_str(), f.throttle),
            (1001, TimeLimit::Minutes(90), "train model", None)
        );
        meta.spec.array = Some(crate::model::jobspec::ArrayRequest {
            tasks: (1..=20).collect(),
            throttle: Some(3),
            step: 1,
        });
        meta.spec.begin = Some(1_800_000_000);
        let t = tag(&meta);
        assert_eq!(t, "slurm:1001:90%3:1800000000 train model");
        let f = parse_tag(&t).unwrap();
        assert_eq!((f.throttle, f.begin), (Some(3), Some(1_800_000_000)));
        meta.spec.array = None;
        meta.spec.begin = None;
        meta.spec.name = "é".repeat(40);
        meta.spec.time_limit = None;
        let t = tag(&meta);
        assert!(t.len() <= 64);
        assert_eq!(parse_tag(&t).unwrap().time_limit, TimeLimit::Infinite);
        assert_eq!(parse_tag("user tag"), None);
        meta.spec.name = "later".into();
        meta.spec.begin = Some(1_796_047_200);
        let t = tag(&meta);
        assert_eq!(t, "slurm:1001:U:1796047200 later");
        assert_eq!(parse_tag(&t).unwrap().begin, Some(1_796_047_200));
        assert_eq!(parse_tag("slurm:1001:U later").unwrap().begin, None);
    }

    #[test]
    fn holds_and_a_later_session_keep_the_jobs_facts() {
        let mut f = parse_tag("slurm:1001:90%3:1800000000 train").unwrap();
        f.hold = Some(HoldKind::User);
        f.submit = Some(1_796_000_000);
        let t = render(&f);
        assert_eq!(t, "slurm:1001:90%3:1800000000:h:s1796000000 train");
        assert_eq!(parse_tag(&t).unwrap(), f);
        f.hold = Some(HoldKind::Admin);
        f.begin = None;
        let t = render(&f);
        assert_eq!(t, "slurm:1001:90%3:H:s1796000000 train");
        assert_eq!(parse_tag(&t).unwrap(), f);
        let mut meta = JobMeta::default();
        meta.spec.hold = true;
        meta.spec.name = "x".into();
        assert_eq!(tag(&meta), "slurm:0:U:h x");
        assert_eq!(parse_tag("slurm:1:U:sx x"), None);
        let f = parse_tag("slurm:1:U:R x").unwrap();
        assert_eq!((f.hold, f.requeue_held), (Some(HoldKind::User), true));
        assert_eq!(render(&f), "slurm:1:U:R x");
        // Awaiting an `after` job's start, held or not.
        let f = parse_tag("slurm:1:U:h:w x").unwrap();
        assert_eq!((f.hold, f.awaits_start), (Some(HoldKind::User), true));
        assert_eq!(render(&f), "slurm:1:U:h:w x");
        meta.spec.hold = false;
        meta.spec.dependency = Some(crate::model::Dependency {
            items: vec![crate::model::DepItem {
                kind: crate::model::DepKind::After,
                target: Some(crate::model::DepTarget::Job(5)),
                delay_minutes: 0,
                status: crate::model::DepStatus::Unfulfilled,
            }],
            any: false,
        });
        assert_eq!(tag(&meta), "slurm:0:U:w x");
    }
}
