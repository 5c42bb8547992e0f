//! The session tag: what squeue shows of a job whose full metadata ([`JobMeta`]) is not
//! at hand yet (a job submitted on another login node, still running): its owner, time
//! limit and name, in at most 64 characters.

use crate::launcher::meta::JobMeta;
use crate::model::TimeLimit;

/// What the session's tag says about its job: enough for squeue's usual columns when the
/// full metadata is not at hand (a job submitted on another login node, still running).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagFacts {
    pub uid: u32,
    pub time_limit: TimeLimit,
    pub name: String,
}

/// The session tag, at most 64 characters: `slurm:<uid>:<minutes or U> <job name>` (the
/// name cut to fit).
pub fn tag(meta: &JobMeta) -> String {
    let limit = match meta.spec.time_limit {
        Some(TimeLimit::Minutes(m)) => m.to_string(),
        _ => "U".to_string(),
    };
    let mut t = format!("slurm:{}:{limit} {}", meta.uid, meta.spec.name);
    if t.len() > 64 {
        let mut cut = 64;
        while !t.is_char_boundary(cut) {
            cut -= 1;
        }
        t.truncate(cut);
    }
    t
}

pub fn parse_tag(tag: &str) -> Option<TagFacts> {
    let (head, name) = tag.strip_prefix("slurm:")?.split_once(' ')?;
    let (uid, limit) = head.split_once(':')?;
    Some(TagFacts {
        uid: uid.parse().ok()?,
        time_limit: match limit {
            "U" => TimeLimit::Infinite,
            m => TimeLimit::Minutes(m.parse().ok()?),
        },
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
            (f.uid, f.time_limit, f.name.as_str()),
            (1001, TimeLimit::Minutes(90), "train model")
        );
        meta.spec.name = "é".repeat(40);
        meta.spec.time_limit = None;
        let t = tag(&meta);
        assert!(t.len() <= 64);
        assert_eq!(parse_tag(&t).unwrap().time_limit, TimeLimit::Infinite);
        assert_eq!(parse_tag("user tag"), None);
    }
}
