//! The read side: sessions, agents and resource groups, each in one paged query per
//! command (never a request per job), plus the one-time log read that gives a finished
//! job its exit code (cached for good).

use super::cache::Cache;
use super::client::{Client, ClientError, Method};
use super::jobid;
use super::partitions::Agent;
use super::records::{Session, session_fields};
use crate::launcher::meta::{self, JobMeta, LaunchResult};
use crate::model::job::StepRecord;
use serde_json::{Value, json};

/// Items per GraphQL page (`[backendai] page_size`): a queue of this many jobs costs one
/// request.
pub const PAGE: u64 = 1000;

/// Session statuses that have ended.
pub const FINISHED: [&str; 3] = ["TERMINATED", "CANCELLED", "ERROR"];

/// A GraphQL string literal inside a query filter (`"..."` with escapes).
pub fn quoted(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            q.push('\\');
        }
        q.push(c);
    }
    q.push('"');
    q
}

pub fn iso(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H:%M:%S+00:00")
        .to_string()
}

/// `filter` for sessions still alive (not ended).
pub fn alive() -> String {
    let alive: Vec<String> = FINISHED
        .iter()
        .map(|s| format!("status != {}", quoted(s)))
        .collect();
    alive.join(" & ")
}

/// `filter` for sessions still alive or ended at or after `since`.
pub fn alive_or_ended_since(since: i64) -> String {
    format!("({}) | (terminated_at >= {})", alive(), quoted(&iso(since)))
}

/// `filter` for sessions of an accounting window: created before `end`, and alive or ended
/// at or after `start`.
pub fn window(start: Option<i64>, end: Option<i64>) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(e) = end {
        parts.push(format!("(created_at < {})", quoted(&iso(e))));
    }
    if let Some(s) = start {
        parts.push(format!("({})", alive_or_ended_since(s)));
    }
    (!parts.is_empty()).then(|| parts.join(" & "))
}

/// `filter` for the sessions of the given job ids (`j<id>` and `j<id>_<task>`; the prefix
/// also matches longer ids, which callers drop by parsing the names).
pub fn names_of_jobs(ids: &[u32]) -> Option<String> {
    if ids.is_empty() {
        return None;
    }
    let alts: Vec<String> = ids
        .iter()
        .map(|id| format!("(name like {})", quoted(&format!("j{id}%"))))
        .collect();
    Some(format!("({})", alts.join(" | ")))
}

pub fn and(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("({a}) & ({b})")),
        (a, b) => a.or(b),
    }
}

/// Every session the keypair may see that matches `filter`, oldest first, in pages of
/// [`PAGE`].
pub fn sessions(client: &Client, filter: Option<&str>) -> Result<Vec<Session>, ClientError> {
    sessions_paged(client, filter, PAGE)
}

/// [`sessions`] in pages of `page` items.
pub fn sessions_paged(
    client: &Client,
    filter: Option<&str>,
    page: u64,
) -> Result<Vec<Session>, ClientError> {
    Ok(latest_of_each_name(every_session_paged(
        client, filter, page,
    )?))
}

/// The jobs' sessions of [`sessions_paged`], and apart from them the earlier runs of
/// requeued jobs: a requeue makes a job's session again once its run has ended, so an
/// older session of the name whose container ran is such a run (a hold or a release makes
/// again only sessions that never ran).
pub fn sessions_and_earlier_runs(
    client: &Client,
    filter: Option<&str>,
    page: u64,
) -> Result<(Vec<Session>, Vec<Session>), ClientError> {
    let all = every_session_paged(client, filter, page)?;
    let newest = newest_of_each_name(&all);
    let (mut jobs, mut runs) = (Vec::new(), Vec::new());
    for (s, newest) in all.into_iter().zip(newest) {
        match newest || !s.job_ended() {
            true => jobs.push(s),
            false if s.ran() => runs.push(s),
            false => {}
        }
    }
    Ok((jobs, runs))
}

/// Every session matching `filter`, a job's older sessions too.
fn every_session_paged(
    client: &Client,
    filter: Option<&str>,
    page: u64,
) -> Result<Vec<Session>, ClientError> {
    let page = page.max(1);
    let api_major = client.api_version()?.major;
    let fields = session_fields(api_major);
    let query = format!(
        "query($limit: Int!, $offset: Int!, $filter: String) {{
           compute_session_list(limit: $limit, offset: $offset, filter: $filter,
                                order: \"created_at\") {{
             total_count items {{ {fields} }} }} }}"
    );
    let mut out = Vec::new();
    let mut offset = 0u64;
    loop {
        let data = client.graphql(
            &query,
            json!({ "limit": page, "offset": offset, "filter": filter }),
        )?;
        let list = &data["compute_session_list"];
        let items = list["items"].as_array().cloned().unwrap_or_default();
        let total = list["total_count"].as_u64().unwrap_or(0);
        let got = items.len() as u64;
        out.extend(items.iter().filter_map(Session::from_json).map(|mut s| {
            s.api_major = api_major;
            s
        }));
        offset += got;
        if got == 0 || offset >= total {
            return Ok(out);
        }
    }
}

/// A job's session made again (a hold, a release) leaves the ended one behind under the
/// same name: the newest session of a name is the job, older ended ones are dropped.
/// Creation times are compared in seconds, and a session made again within the second of
/// the first ties with it: then the manager's order (`created_at`, to the microsecond)
/// decides.
fn latest_of_each_name(sessions: Vec<Session>) -> Vec<Session> {
    let newest = newest_of_each_name(&sessions);
    sessions
        .into_iter()
        .zip(newest)
        .filter(|(s, newest)| *newest || !s.job_ended())
        .map(|(s, _)| s)
        .collect()
}

/// For each session, whether it is the newest of its owner's sessions of that name.
fn newest_of_each_name(sessions: &[Session]) -> Vec<bool> {
    let key = |s: &Session| (s.access_key.clone(), s.name.clone());
    let mut newest: std::collections::HashMap<(String, String), (Option<i64>, usize)> =
        std::collections::HashMap::new();
    for (i, s) in sessions.iter().enumerate() {
        let at = newest.entry(key(s)).or_insert((s.created_at, i));
        *at = (*at).max((s.created_at, i));
    }
    sessions
        .iter()
        .enumerate()
        .map(|(i, s)| newest.get(&key(s)) == Some(&(s.created_at, i)))
        .collect()
}

/// The agents (nodes) the keypair may see. Agent details may be hidden from normal users
/// (`hide-agents`); then the list is empty and sinfo shows partitions without nodes.
pub fn agents(client: &Client) -> Result<Vec<Agent>, ClientError> {
    let query = "query($limit: Int!, $offset: Int!) {
        agent_summary_list(limit: $limit, offset: $offset) {
          total_count items { id status scaling_group schedulable available_slots
                              occupied_slots architecture } } }";
    let mut out = Vec::new();
    let mut offset = 0u64;
    loop {
        let data = match client.graphql(query, json!({ "limit": PAGE, "offset": offset })) {
            Ok(d) => d,
            // Hidden from this user (`hide-agents`: "agent not found"): say nothing about
            // nodes rather than fail sinfo.
            Err(ClientError::GraphQl { messages })
                if offset == 0 && messages.iter().any(|m| m.contains("not found")) =>
            {
                return Ok(Vec::new());
            }
            Err(e) => return Err(e),
        };
        let list = &data["agent_summary_list"];
        let items = list["items"].as_array().cloned().unwrap_or_default();
        let total = list["total_count"].as_u64().unwrap_or(0);
        let got = items.len() as u64;
        out.extend(items.iter().filter_map(Agent::from_json));
        offset += got;
        if got == 0 || offset >= total {
            return Ok(out);
        }
    }
}

/// The resource groups the user's project may use.
pub fn resource_groups(client: &Client) -> Result<Vec<String>, ClientError> {
    let group = &client.settings().group;
    let (_, body) = client.request(
        Method::Get,
        &format!("/scaling-groups?group={}", url_component(group)),
        None,
    )?;
    Ok(body["scaling_groups"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|g| g["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default())
}

/// Percent-encodes a query or path component.
pub fn url_component(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The access key of session `s`'s owner when it is not the client's own keypair (an
/// administrator's view of another user's session); None for the client's own.
pub fn other_owner<'s>(client: &Client, s: &'s Session) -> Option<&'s str> {
    Some(s.access_key.as_str()).filter(|k| !k.is_empty() && *k != client.settings().access_key)
}

/// The path of a session's own resource, for its owner or (as an admin) anybody's.
pub fn session_path(client: &Client, s: &Session, tail: &str) -> String {
    let mut p = format!("/session/{}{tail}", url_component(&s.id));
    if let Some(owner) = other_owner(client, s) {
        p.push_str(&format!("?owner_access_key={}", url_component(owner)));
    }
    p
}

/// What the session listing does not say about a job: its metadata and, once finished,
/// how it ended.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    pub meta: Option<JobMeta>,
    pub result: Option<LaunchResult>,
    /// The steps node 0's launcher logged: known once the job has ended, and for a
    /// running job when the view asks for them (`live_steps`).
    pub steps: Vec<StepRecord>,
}

/// The facts of each session: from the cache, else read once from a finished job's log
/// (the launcher prints its metadata first and its result last) and cached. A live job
/// submitted elsewhere costs nothing: its tag says what squeue usually shows. Sessions
/// bai-slurm did not make need neither. A log that cannot be read now is asked again
/// next time. With `live_steps`, a running job's log is read too, for the steps logged so
/// far (not cached: more come).
pub fn facts(client: &Client, cache: &Cache, sessions: &[Session], live_steps: bool) -> Vec<Facts> {
    sessions
        .iter()
        .map(|s| {
            if jobid::parse_session_name(&s.name).is_none() {
                return Facts::default();
            }
            let mut meta = cache.meta(&s.id);
            let has_log = s.has_log();
            let mut result = if has_log { cache.result(&s.id) } else { None };
            let mut steps = if has_log { cache.steps(&s.id) } else { None };
            if has_log
                && (result.is_none() || meta.is_none() || steps.is_none())
                && let Some(log) = read_log(client, s)
            {
                let r = meta::parse_result(&log);
                cache.store_result(&s.id, r.as_ref());
                result = Some(r);
                let logged = meta::parse_steps(&log);
                cache.store_steps(&s.id, &logged);
                steps = Some(logged);
                if meta.is_none() {
                    let m = JobMeta::from_log(&log);
                    cache.store_meta(&s.id, m.as_ref());
                    meta = Some(m);
                }
            }
            if live_steps && s.status == "RUNNING" && steps.is_none() {
                steps = read_log(client, s).map(|log| meta::parse_steps(&log));
            }
            Facts {
                meta: meta.flatten(),
                result: result.flatten(),
                steps: steps.unwrap_or_default(),
            }
        })
        .collect()
}

/// A finished session's console log; `Some("")` when the manager no longer has it.
fn read_log(client: &Client, s: &Session) -> Option<String> {
    let path = session_path(client, s, "/logs");
    match client.request(Method::Get, &path, None) {
        Ok((_, body)) => Some(
            body.pointer("/result/logs")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        ),
        Err(e) if e.is_not_found() => Some(String::new()),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_quote_and_combine() {
        assert_eq!(quoted("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(
            alive_or_ended_since(0),
            "(status != \"TERMINATED\" & status != \"CANCELLED\" & status != \"ERROR\") | \
             (terminated_at >= \"1970-01-01T00:00:00+00:00\")"
        );
        assert_eq!(
            names_of_jobs(&[5, 7]).unwrap(),
            "((name like \"j5%\") | (name like \"j7%\"))"
        );
        assert_eq!(names_of_jobs(&[]), None);
        assert_eq!(and(None, Some("x".into())), Some("x".into()));
        assert_eq!(
            and(Some("a".into()), Some("b".into())),
            Some("(a) & (b)".into())
        );
        assert_eq!(window(None, None), None);
        assert!(
            window(Some(0), Some(10))
                .unwrap()
                .starts_with("(created_at < ")
        );
        assert_eq!(url_component("a b/é"), "a%20b%2F%C3%A9");
    }

    #[test]
    fn a_job_made_again_is_its_newest_session() {
        let session = |id: &str, status: &str, at: &str| {
            Session::from_json(&json!({
                "id": id, "name": "j5", "status": status, "created_at": at,
                "access_key": "AK",
            }))
            .unwrap()
        };
        let ended = session("a", "CANCELLED", "2026-12-05T05:00:00+00:00");
        let made_again = session("b", "PENDING", "2026-12-05T05:01:00+00:00");
        let kept = latest_of_each_name(vec![ended.clone(), made_again.clone()]);
        assert_eq!(
            kept.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
            ["b"]
        );
        // Made again within the same second: the later in the manager's order.
        let quick = session("c", "CANCELLED", "2026-12-05T05:01:00.900+00:00");
        let ended_too = session("d", "TERMINATED", "2026-12-05T05:01:00.100+00:00");
        let kept = latest_of_each_name(vec![ended_too.clone(), quick.clone()]);
        assert_eq!(
            kept.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
            ["c"]
        );
        let kept = latest_of_each_name(vec![quick, ended_too]);
        assert_eq!(
            kept.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
            ["d"]
        );
        // Alone, an ended session is the job; so is another user's of the same name.
        assert_eq!(latest_of_each_name(vec![ended.clone()]).len(), 1);
        let mut theirs = ended;
        theirs.access_key = "OTHER".into();
        assert_eq!(latest_of_each_name(vec![theirs, made_again]).len(), 2);
    }
}
