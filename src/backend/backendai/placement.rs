//! The parts of a job request that name where it runs and what it sees: `--nodelist`,
//! `--exclude` and `--exclusive` against the agents, `--container-mounts` against the
//! vfolders (by id: Backend.AI 26.x resolves names across every user's folders).

use super::client::{Client, ClientError, Method};
use super::partitions::Agent;
use crate::backend::{BackendError, SlurmErrno, SubmitError};
use crate::config::StorageConfig;
use crate::model::JobSpec;

/// A vfolder to mount: its id (or name, for the site's own mounts), the absolute path it
/// appears at (None: Backend.AI's default), and whether read-only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub vfolder: String,
    pub path: Option<String>,
    pub read_only: bool,
}

/// `--container-mounts=SRC[:DST[:FLAGS]],...` (pyxis): SRC is a vfolder name, or the root
/// of a configured storage (`[[backendai.storage]]`), whose vfolder is mounted; FLAGS
/// `ro` or `rw`. Returns (vfolder name, DST, read-only) for each entry.
pub fn parse_mounts(
    entries: &[String],
    storage: &[StorageConfig],
) -> Result<Vec<(String, Option<String>, bool)>, SubmitError> {
    let bad =
        |why: String| SubmitError::from(BackendError::Other(format!("--container-mounts: {why}")));
    let mut out = Vec::new();
    for entry in entries {
        let mut parts = entry.split(':');
        let src = parts.next().unwrap_or_default();
        let dst = parts.next().filter(|d| !d.is_empty());
        let flags = parts.next().unwrap_or("");
        if parts.next().is_some() {
            return Err(bad(format!("{entry}: expected SRC[:DST[:FLAGS]]")));
        }
        let mut read_only = false;
        for flag in flags.split('+').filter(|f| !f.is_empty()) {
            match flag {
                "ro" => read_only = true,
                "rw" => read_only = false,
                other => {
                    return Err(bad(format!(
                        "{entry}: mount flag {other} is not supported (ro or rw)"
                    )));
                }
            }
        }
        if let Some(d) = dst
            && !d.starts_with('/')
        {
            return Err(bad(format!(
                "{entry}: the destination must be an absolute path"
            )));
        }
        let vfolder = if src.starts_with('/') {
            let root = src.trim_end_matches('/');
            match storage
                .iter()
                .find(|s| s.path.trim_end_matches('/') == root)
            {
                Some(s) => s.vfolder.clone(),
                None => {
                    let roots: Vec<&str> = storage.iter().map(|s| s.path.as_str()).collect();
                    return Err(bad(format!(
                        "{src} is not storage Backend.AI can mount: name a vfolder, or a storage root of [[backendai.storage]] ({})",
                        if roots.is_empty() {
                            "none configured".to_string()
                        } else {
                            roots.join(", ")
                        }
                    )));
                }
            }
        } else if src.is_empty() {
            return Err(bad(format!("{entry}: no source")));
        } else {
            src.to_string()
        };
        let path = dst
            .map(str::to_string)
            .or_else(|| src.starts_with('/').then(|| src.to_string()));
        out.push((vfolder, path, read_only));
    }
    Ok(out)
}

/// The ids of the vfolders the user can mount, by name.
fn vfolder_ids(client: &Client) -> Result<Vec<(String, String)>, ClientError> {
    let (_, v) = client.request(Method::Get, "/folders", None)?;
    Ok(v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| {
                    Some((
                        f["name"].as_str()?.to_string(),
                        f["id"].as_str()?.to_string(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default())
}

/// The job's own mounts, by vfolder id.
pub fn container_mounts(
    client: &Client,
    spec: &JobSpec,
    storage: &[StorageConfig],
) -> Result<Vec<Mount>, SubmitError> {
    if spec.container.mounts.is_empty() {
        return Ok(Vec::new());
    }
    let wanted = parse_mounts(&spec.container.mounts, storage)?;
    let ids = vfolder_ids(client).map_err(|e| BackendError::Other(e.to_string()))?;
    wanted
        .into_iter()
        .map(|(name, path, read_only)| {
            let id = ids
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, id)| id.clone())
                .ok_or_else(|| {
                    SubmitError::from(BackendError::Other(format!(
                        "--container-mounts: there is no vfolder {name} you can mount"
                    )))
                })?;
            Ok(Mount {
                vfolder: id,
                path,
                read_only,
            })
        })
        .collect()
}

/// Where a job may run and how much of an agent it takes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Placement {
    /// `agent_list`: the agents the session may use.
    pub agents: Vec<String>,
    /// `--exclusive`: the CPUs and memory (MB) of a whole agent, per container.
    pub whole_agent: Option<(u32, u64)>,
}

/// `--nodelist`, `--exclude` and `--exclusive` against the agents of the job's resource
/// group (node names are agent ids, as sinfo shows them).
pub fn placement(
    spec: &JobSpec,
    agents: &[Agent],
    resource_group: &str,
) -> Result<Placement, SubmitError> {
    let needed = spec.nodelist.is_some() || spec.exclude.is_some() || spec.exclusive;
    if !needed {
        return Ok(Placement::default());
    }
    let members: Vec<&Agent> = agents
        .iter()
        .filter(|a| a.resource_group == resource_group)
        .collect();
    if agents.is_empty() {
        return Err(BackendError::Other(
            "--nodelist, --exclude and --exclusive need the agents, which Backend.AI does not show to this keypair".into(),
        )
        .into());
    }
    let listed = |list: &Option<String>| -> Result<Vec<String>, SubmitError> {
        let Some(list) = list else {
            return Ok(Vec::new());
        };
        match crate::model::hostlist::expand(list) {
            Some(names) if names.iter().all(|n| agents.iter().any(|a| a.id == *n)) => Ok(names),
            _ => Err(SubmitError::errno(SlurmErrno::InvalidNodeName)),
        }
    };
    let required = listed(&spec.nodelist)?;
    let excluded = listed(&spec.exclude)?;
    if required.iter().any(|n| excluded.contains(n)) {
        return Err(SubmitError::errno(SlurmErrno::InvalidNodeName));
    }
    let usable: Vec<&Agent> = members
        .iter()
        .copied()
        .filter(|a| !excluded.contains(&a.id))
        .filter(|a| required.is_empty() || required.contains(&a.id))
        .collect();
    if usable.len() < spec.nodes() as usize
        || required.iter().any(|n| !members.iter().any(|a| a.id == *n))
    {
        return Err(SubmitError::errno(
            SlurmErrno::RequestedNodeConfigUnavailable,
        ));
    }
    let agents_list = if required.is_empty() && excluded.is_empty() {
        Vec::new()
    } else {
        usable.iter().map(|a| a.id.clone()).collect()
    };
    let whole_agent = spec.exclusive.then(|| {
        let biggest = usable.iter().max_by(|a, b| {
            a.cpus
                .total_cmp(&b.cpus)
                .then(a.mem_bytes.total_cmp(&b.mem_bytes))
        });
        biggest.map_or((1, 1), |a| {
            (
                a.cpus.floor().max(1.0) as u32,
                (a.mem_bytes / 1_048_576.0).max(1.0) as u64,
            )
        })
    });
    Ok(Placement {
        agents: agents_list,
        whole_agent,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn storage() -> Vec<StorageConfig> {
        vec![StorageConfig {
            path: "/data".into(),
            vfolder: "data".into(),
        }]
    }

    #[test]
    fn mounts_name_a_vfolder_or_a_storage_root() {
        let m = |e: &str| parse_mounts(&[e.to_string()], &storage());
        assert_eq!(
            m("/data:/data").unwrap(),
            [("data".into(), Some("/data".into()), false)]
        );
        assert_eq!(
            m("/data").unwrap(),
            [("data".into(), Some("/data".into()), false)]
        );
        assert_eq!(
            m("ds:/mnt/ds:ro").unwrap(),
            [("ds".into(), Some("/mnt/ds".into()), true)]
        );
        assert_eq!(m("ds").unwrap(), [("ds".into(), None, false)]);
        for bad in [
            "/scratch:/scratch",
            "ds:rel",
            "ds:/x:private",
            ":/x",
            "a:/b:ro:x",
        ] {
            let e = m(bad).unwrap_err();
            assert!(
                format!("{:?}", e).contains("--container-mounts"),
                "{bad}: {e:?}"
            );
        }
    }
}
