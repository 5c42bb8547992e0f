//! `-m/--distribution`: Slurm's `verify_dist_type` with `_parse_dist_base` and
//! `_parse_plane_dist`, `format_task_dist_states` and `set_distribution`
//! (`src/common/proc_args.c`).
//!
//! Forms: `plane[=N]` (N from `SLURM_DIST_PLANESIZE` when `=` is missing), `arbitrary`
//! (or `hostfile`), or up to three `:`-separated levels — node level `block`/`cyclic`,
//! socket and core levels `block`/`cyclic`/`fcyclic`, `*` meaning the default (block,
//! then cyclic, then the socket level's choice) — followed by an optional `,pack` or
//! `,nopack`. `pack`/`nopack` alone is valid too. Words are case-insensitive.

use super::Note;
use super::ValueError;

/// One level of a distribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DistLevel {
    Block,
    Cyclic,
    /// `fcyclic` (full cyclic), socket and core levels only.
    FCyclic,
}

impl DistLevel {
    fn name(self) -> &'static str {
        match self {
            DistLevel::Block => "block",
            DistLevel::Cyclic => "cyclic",
            DistLevel::FCyclic => "fcyclic",
        }
    }
}

/// The base method of a distribution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DistBase {
    /// Only `pack`/`nopack` was given: the controller's default method (SLURM_DIST_UNKNOWN).
    Default,
    /// Node level, then optional socket and core levels.
    Levels(Vec<DistLevel>),
    Plane(u32),
    Arbitrary,
}

/// The node packing flag after the comma.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pack {
    Pack,
    NoPack,
    /// `pack,nopack` (or the other way round): Slurm sets both bits.
    Both,
}

/// A parsed `--distribution`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Distribution {
    pub base: DistBase,
    pub pack: Option<Pack>,
}

impl Distribution {
    /// `format_task_dist_states`: `block`, `cyclic:fcyclic`, `plane`, `arbitrary`, or
    /// `unknown` when only a pack flag was given.
    pub fn base_name(&self) -> String {
        match &self.base {
            DistBase::Default => "unknown".to_string(),
            DistBase::Levels(l) => l.iter().map(|x| x.name()).collect::<Vec<_>>().join(":"),
            DistBase::Plane(_) => "plane".to_string(),
            DistBase::Arbitrary => "arbitrary".to_string(),
        }
    }

    /// `set_distribution`: the SLURM_DISTRIBUTION value (and `--verbose` echo), e.g.
    /// `cyclic`, `block,pack`, `nopack`. `None` when Slurm sets nothing: with both pack
    /// flags it prints `error: set_distribution: Unknown distribution flag value: 0xc00000`.
    pub fn env_value(&self) -> Option<String> {
        let mut s = match self.base {
            DistBase::Default => String::new(),
            _ => self.base_name(),
        };
        match self.pack {
            None => {}
            Some(Pack::Both) => return None,
            Some(p) => {
                if !s.is_empty() {
                    s.push(',');
                }
                s.push_str(if p == Pack::Pack { "pack" } else { "nopack" });
            }
        }
        Some(s)
    }

    /// `arg_get_distribution`, the `--verbose` echo: [`Self::env_value`] plus `=N` for a
    /// plane distribution (`plane=2`). SLURM_DIST_PLANESIZE carries N separately.
    pub fn verbose_echo(&self) -> Option<String> {
        let mut s = self.env_value()?;
        if let DistBase::Plane(n) = self.base {
            s.push_str(&format!("={n}"));
        }
        Some(s)
    }
}

fn invalid() -> ValueError {
    ValueError::invalid_spec("--distribution")
}

fn level(word: &str) -> Option<DistLevel> {
    match word.to_ascii_lowercase().as_str() {
        "block" => Some(DistLevel::Block),
        "cyclic" => Some(DistLevel::Cyclic),
        "fcyclic" => Some(DistLevel::FCyclic),
        _ => None,
    }
}

fn pack_flag(word: &str, current: Option<Pack>) -> Option<Pack> {
    let new = match word.to_ascii_lowercase().as_str() {
        "pack" => Pack::Pack,
        "nopack" => Pack::NoPack,
        _ => return None,
    };
    Some(match current {
        Some(old) if old != new => Pack::Both,
        _ => new,
    })
}

/// `_parse_plane_dist`: `plane=N`, N in 1..=INT_MAX read by `strtol`.
fn parse_plane(arg: &str, plane_size_env: Option<&str>) -> Result<Distribution, ValueError> {
    let size = match arg.find('=') {
        Some(i) => Some(&arg[i + 1..]),
        None => plane_size_env.filter(|s| !s.is_empty()),
    };
    let parsed = size.and_then(|s| {
        let b = crate::model::cnum::c_bytes(s);
        let p = crate::model::cnum::strtol(b);
        (p.digits && p.end == b.len() && (1..=i64::from(i32::MAX)).contains(&p.value))
            .then_some(p.value as u32)
    });
    match parsed {
        Some(n) => Ok(Distribution {
            base: DistBase::Plane(n),
            pack: None,
        }),
        None => Err(ValueError::Invalid {
            notes: vec![Note::Error(
                "Invalid plane size or size not specified".to_string(),
            )],
            message: "Invalid --distribution specification".to_string(),
        }),
    }
}

/// `verify_dist_type` for `--distribution` (`Invalid --distribution specification`,
/// exit 255). `plane_size_env` is the submit environment's `SLURM_DIST_PLANESIZE`.
pub fn parse_distribution(
    arg: &str,
    plane_size_env: Option<&str>,
) -> Result<Distribution, ValueError> {
    let arg = &arg[..arg.find('\0').unwrap_or(arg.len())];
    if arg.len() >= 5 && arg.as_bytes()[..5].eq_ignore_ascii_case(b"plane") {
        return parse_plane(arg, plane_size_env);
    }
    if arg.is_empty() || arg.starts_with(',') {
        return Err(invalid());
    }
    let (base_str, flag_str) = match arg.split_once(',') {
        Some((b, f)) => (b, Some(f)),
        None => (arg, None),
    };
    // strtok(":") skips empty fields; `*` takes the level's default.
    let mut words: Vec<String> = Vec::new();
    let mut socket_word = String::new();
    for (i, tok) in base_str.split(':').filter(|t| !t.is_empty()).enumerate() {
        if i > 2 {
            return Err(invalid());
        }
        let word = if tok == "*" {
            match i {
                0 => "block".to_string(),
                1 => "cyclic".to_string(),
                _ => socket_word.clone(),
            }
        } else {
            tok.to_string()
        };
        if i == 1 {
            socket_word = word.clone();
        }
        words.push(word);
    }
    let joined = words.join(":");
    let mut dist =
        if joined.eq_ignore_ascii_case("arbitrary") || joined.eq_ignore_ascii_case("hostfile") {
            Distribution {
                base: DistBase::Arbitrary,
                pack: None,
            }
        } else if let Some(levels) = words.iter().map(|w| level(w)).collect::<Option<Vec<_>>>()
            && !levels.is_empty()
            && levels[0] != DistLevel::FCyclic
        {
            Distribution {
                base: DistBase::Levels(levels),
                pack: None,
            }
        } else {
            match pack_flag(&joined, None) {
                Some(p) => Distribution {
                    base: DistBase::Default,
                    pack: Some(p),
                },
                None => return Err(invalid()),
            }
        };
    if let Some(flags) = flag_str.filter(|f| !f.is_empty()) {
        dist.pack = Some(pack_flag(flags, dist.pack).ok_or_else(invalid)?);
    }
    Ok(dist)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;
    use DistLevel::*;

    fn levels(s: &str) -> Vec<DistLevel> {
        match parse_distribution(s, None).unwrap().base {
            DistBase::Levels(l) => l,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn levels_and_defaults() {
        assert_eq!(levels("block"), vec![Block]);
        assert_eq!(levels("CYCLIC"), vec![Cyclic]);
        assert_eq!(levels("block:cyclic"), vec![Block, Cyclic]);
        assert_eq!(levels("cyclic:fcyclic"), vec![Cyclic, FCyclic]);
        assert_eq!(levels("block:block:fcyclic"), vec![Block, Block, FCyclic]);
        assert_eq!(levels("*"), vec![Block]);
        assert_eq!(levels("*:*"), vec![Block, Cyclic]);
        assert_eq!(levels("*:*:*"), vec![Block, Cyclic, Cyclic]);
        assert_eq!(levels("cyclic:block:*"), vec![Cyclic, Block, Block]);
        assert_eq!(levels("block:fcyclic:*"), vec![Block, FCyclic, FCyclic]);
        assert_eq!(levels("block::cyclic"), vec![Block, Cyclic]);
        assert_eq!(levels("cyclic:"), vec![Cyclic]);
        assert_eq!(levels("block,"), vec![Block]);
    }

    #[test]
    fn other_bases_and_flags() {
        let d = parse_distribution("arbitrary", None).unwrap();
        assert_eq!(d.base, DistBase::Arbitrary);
        assert_eq!(
            parse_distribution("HostFile", None).unwrap().base,
            DistBase::Arbitrary
        );
        let d = parse_distribution("cyclic,Pack", None).unwrap();
        assert_eq!(
            (d.base.clone(), d.pack),
            (DistBase::Levels(vec![Cyclic]), Some(Pack::Pack))
        );
        assert_eq!(d.env_value().as_deref(), Some("cyclic,pack"));
        let d = parse_distribution("nopack", None).unwrap();
        assert_eq!(
            (d.base.clone(), d.pack),
            (DistBase::Default, Some(Pack::NoPack))
        );
        assert_eq!(d.env_value().as_deref(), Some("nopack"));
        let d = parse_distribution("pack,nopack", None).unwrap();
        assert_eq!(d.pack, Some(Pack::Both));
        assert_eq!(d.env_value(), None);
        assert_eq!(
            parse_distribution("block:cyclic", None)
                .unwrap()
                .env_value()
                .as_deref(),
            Some("block:cyclic")
        );
    }

    #[test]
    fn plane() {
        assert_eq!(
            parse_distribution("plane=4", None).unwrap().base,
            DistBase::Plane(4)
        );
        assert_eq!(
            parse_distribution("PLANE=+4", None).unwrap().base,
            DistBase::Plane(4)
        );
        assert_eq!(
            parse_distribution("plane", Some("8")).unwrap().base,
            DistBase::Plane(8)
        );
        assert_eq!(
            parse_distribution("planex=2", None).unwrap().base,
            DistBase::Plane(2)
        );
        let p3 = parse_distribution("plane=3", None).unwrap();
        assert_eq!(p3.env_value().as_deref(), Some("plane"));
        // Seen on 22.05.8: `srun -v -m plane` with SLURM_DIST_PLANESIZE=2 echoes plane=2.
        let p2 = parse_distribution("plane", Some("2")).unwrap();
        assert_eq!(p2.verbose_echo().as_deref(), Some("plane=2"));
        assert_eq!(
            parse_distribution("cyclic,pack", None)
                .unwrap()
                .verbose_echo()
                .as_deref(),
            Some("cyclic,pack")
        );
        for (s, env) in [
            ("plane", None),
            ("plane", Some("")),
            ("plane=", None),
            ("plane=0", None),
            ("plane=-2", None),
            ("plane=4x", None),
            ("plane=4,pack", None),
            ("plane=2147483648", None),
        ] {
            let e = parse_distribution(s, env).unwrap_err();
            assert_eq!(
                e.render("srun", ""),
                "srun: error: Invalid plane size or size not specified\n\
                 srun: error: Invalid --distribution specification\n",
                "{s:?}"
            );
        }
    }

    #[test]
    fn rejected() {
        for s in [
            "",
            ",pack",
            "bogus",
            "fcyclic",
            "fcyclic:block",
            "block:cyclic:cyclic:block",
            "block:bogus",
            "block,bogus",
            "block,,pack",
            "arbitrary:block",
            "pack:block",
            "block:arbitrary",
            "cyclic,pack,nopack",
        ] {
            let e = parse_distribution(s, None).unwrap_err();
            assert_eq!(e.message(), "Invalid --distribution specification", "{s:?}");
            assert_eq!(e.exit_code(1), 255);
        }
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(23, "blockcyfpan*:,=", 24, 20000) {
            let _ = parse_distribution(&s, Some("2")).map(|d| d.env_value());
        }
    }
}
