//! The session tag: what squeue shows of a job whose full metadata ([`JobMeta`]) is not
//! at hand yet (a job submitted on another login node, still running): its owner, time
//! limit, deferred start (`--begin`) and name, in at most 64 characters.

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
    pub name: String,
}

/// The longest tag Backend.AI keeps.
pub const MAX_LEN: usize = 64;

/// The session tag, at most 64 characters: `slurm:<uid>:<minutes or U>[%<throttle>][:<begin
/// epoch>] <job name>` (the name cut to fit).
pub fn tag(meta: &JobMeta) -> String {
    let limit = match meta.spec.time_limit {
        Some(TimeLimit::Minutes(m)) => m.to_string(),
        _ => "U".to_string(),
    };
    let throttle = meta
        .spec
        .array
        .as_ref()
        .and_then(|a| a.limiting_throttle())
        .map(|t| format!("%{t}"))
        .unwrap_or_default();
    let begin = meta.spec.begin.map(|b| format!(":{b}")).unwrap_or_default();
    let mut t = format!(
        "slurm:{}:{limit}{throttle}{begin} {}",
        meta.uid, meta.spec.name
    );
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
    let (uid, rest) = head.split_once(':')?;
    let (limit, begin) = match rest.split_once(':') {
        Some((l, b)) => (l, Some(b.parse().ok()?)),
        None => (rest, None),
    };
    let (limit, throttle) = match limit.split_once('%') {
        Some((l, t)) => (l, Some(t.parse().ok()?)),
        None => (limit, None),
    };
    Some(TagFacts {
        throttle,
        uid: uid.parse().ok()?,
        time_limit: match limit {
            "U" => TimeLimit::Infinite,
            m => TimeLimit::Minutes(m.parse().ok()?),
        },
        begin,
        name: name.to_string(),
    })
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
}
