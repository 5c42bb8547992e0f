//! The account a job is charged to, as slurmctld settles it from slurmdbd's associations
//! (`_job_create`): the user's default account when the job names none; a named account
//! the user has no association with is refused under enforcement, and otherwise replaced
//! by the default ("account 'x' has no association for user N using default account").
//! Account names are compared and recorded in lower case, as associations keep them.

use super::{SlurmErrno, SubmitError};
use crate::config::AccountsConfig;
use crate::model::JobSpec;

/// The account `user` is charged with for `requested`; None when no account applies.
pub fn settle(
    cfg: &AccountsConfig,
    user: &str,
    requested: Option<&str>,
) -> Result<Option<String>, SubmitError> {
    let requested = requested.filter(|a| !a.is_empty());
    if !cfg.is_set() {
        // No accounting: whatever the job names is recorded as it is.
        return Ok(requested.map(str::to_string));
    }
    let mine: Vec<String> = cfg
        .of_user(user)
        .iter()
        .map(|a| a.to_ascii_lowercase())
        .collect();
    let default = mine.first().cloned();
    match requested.map(str::to_ascii_lowercase) {
        None if default.is_none() && cfg.enforce => {
            Err(SubmitError::errno(SlurmErrno::InvalidAccount))
        }
        None => Ok(default),
        Some(a) if mine.contains(&a) => Ok(Some(a)),
        Some(_) if cfg.enforce => Err(SubmitError::errno(SlurmErrno::InvalidAccount)),
        // A user with no default keeps the name given.
        Some(a) => Ok(default.or(Some(a))),
    }
}

/// `spec` with its account settled for `user`.
pub fn charged(cfg: &AccountsConfig, spec: &JobSpec, user: &str) -> Result<JobSpec, SubmitError> {
    let mut spec = spec.clone();
    spec.account = settle(cfg, user, spec.account.as_deref())?;
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(default: Option<&str>, users: &[(&str, &[&str])], enforce: bool) -> AccountsConfig {
        AccountsConfig {
            default: default.map(str::to_string),
            users: users
                .iter()
                .map(|(u, a)| (u.to_string(), a.iter().map(|s| s.to_string()).collect()))
                .collect(),
            enforce,
        }
    }

    #[test]
    fn without_accounts_the_name_is_kept_as_given() {
        let c = AccountsConfig::default();
        assert_eq!(settle(&c, "alice", None).unwrap(), None);
        assert_eq!(
            settle(&c, "alice", Some("Physics")).unwrap().as_deref(),
            Some("Physics")
        );
    }

    #[test]
    fn the_default_account_fills_in_and_replaces_unknown_names() {
        let c = cfg(
            Some("research"),
            &[("bob", &["physics", "Research"])],
            false,
        );
        let s = |u, a| settle(&c, u, a).unwrap();
        assert_eq!(s("alice", None).as_deref(), Some("research"));
        assert_eq!(s("alice", Some("")).as_deref(), Some("research"));
        assert_eq!(s("alice", Some("RESEARCH")).as_deref(), Some("research"));
        assert_eq!(s("alice", Some("nosuch")).as_deref(), Some("research"));
        assert_eq!(s("bob", None).as_deref(), Some("physics"));
        assert_eq!(s("bob", Some("research")).as_deref(), Some("research"));
    }

    #[test]
    fn enforcement_refuses_accounts_that_are_not_the_users() {
        let c = cfg(Some("research"), &[("bob", &[])], true);
        let err = settle(&c, "alice", Some("nosuch")).unwrap_err();
        assert_eq!(err.errno, Some(SlurmErrno::InvalidAccount));
        assert!(settle(&c, "bob", None).is_err());
        assert_eq!(
            settle(&c, "alice", Some("research")).unwrap().as_deref(),
            Some("research")
        );
    }
}
