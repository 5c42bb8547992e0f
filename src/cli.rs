//! What a command runs with: its arguments, a snapshot of the environment, the clock,
//! the calling user, and the two output streams. Commands never touch process globals,
//! so tests can run them in-process and capture every byte.

use crate::model::cnum::strtol;
use crate::model::profile::Profile;
use crate::sys::UserInfo;
use std::collections::BTreeMap;
use std::io::{Read, Write};

pub struct Invocation<'a> {
    /// The program name Slurm would print in messages (`sbatch`, `squeue`, ...).
    pub prog: &'static str,
    /// Arguments after the command name.
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    /// Unix seconds at the start of the command; every "now" in the output is this one.
    pub now: i64,
    pub user: UserInfo,
    pub cwd: std::path::PathBuf,
    pub stdin: &'a mut dyn Read,
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    /// Where user names and uids are looked up (`-u alice`, `--me`).
    pub users: &'a dyn UserDirectory,
    /// The Slurm release the site replaces (`slurm_version`), whose behaviour the command
    /// follows where releases differ.
    pub profile: &'static Profile,
}

/// The user database as Slurm's clients consult it (`getpwnam`/`getpwuid`). Commands go
/// through this so tests can supply users the machine does not have.
pub trait UserDirectory {
    fn by_name(&self, name: &str) -> Option<UserInfo>;
    fn by_uid(&self, uid: u32) -> Option<UserInfo>;

    /// Slurm's `uid_from_string`: a user name, else a numeric uid that exists.
    fn resolve(&self, name_or_uid: &str) -> Option<u32> {
        if let Some(u) = self.by_name(name_or_uid) {
            return Some(u.uid);
        }
        let (n, used) = strtol(name_or_uid.as_bytes()).value_and_end();
        if used == 0 || used != name_or_uid.len() || !(0..=i64::from(i32::MAX)).contains(&n) {
            return None;
        }
        let uid = u32::try_from(n).ok()?;
        self.by_uid(uid).map(|u| u.uid)
    }
}

/// The machine's own user database.
pub struct OsUsers;

impl UserDirectory for OsUsers {
    fn by_name(&self, name: &str) -> Option<UserInfo> {
        crate::sys::lookup_user_by_name(name)
    }
    fn by_uid(&self, uid: u32) -> Option<UserInfo> {
        crate::sys::lookup_user_by_uid(uid)
    }
}

/// A fixed list of users, for tests and for backends that know their users.
#[derive(Debug, Clone, Default)]
pub struct StaticUsers(pub Vec<UserInfo>);

impl UserDirectory for StaticUsers {
    fn by_name(&self, name: &str) -> Option<UserInfo> {
        self.0.iter().find(|u| u.name == name).cloned()
    }
    fn by_uid(&self, uid: u32) -> Option<UserInfo> {
        self.0.iter().find(|u| u.uid == uid).cloned()
    }
}

impl Invocation<'_> {
    pub fn var(&self, name: &str) -> Option<&str> {
        self.env.get(name).map(String::as_str)
    }

    /// A variable that is set and not empty.
    pub fn var_nonempty(&self, name: &str) -> Option<&str> {
        self.var(name).filter(|v| !v.is_empty())
    }

    /// Writes `<prog>: error: <msg>` to stderr, Slurm's client log format.
    pub fn error(&mut self, msg: &str) {
        let _ = writeln!(self.err, "{}: error: {msg}", self.prog);
    }

    /// Prints what a parser decided ends the command (help, usage, version, an error) and
    /// returns its exit status.
    pub fn finish(&mut self, stdout: &str, stderr: &str, code: i32) -> i32 {
        let _ = self.out.write_all(stdout.as_bytes());
        let _ = self.err.write_all(stderr.as_bytes());
        code
    }

    /// Writes `<prog>: warning: <msg>` to stderr.
    pub fn warning(&mut self, msg: &str) {
        let _ = writeln!(self.err, "{}: warning: {msg}", self.prog);
    }
}

/// The first of the 128 characters that stand for the bytes 0x80..=0xFF of an argument
/// that is not UTF-8 (Supplementary Private Use Area-B, which no text uses).
const RAW_BYTE_BASE: u32 = 0x10_FF00;

/// An argument as the command reads it. Slurm's commands are C programs: they take an
/// argument's bytes as they are and print them back as they are (`Invalid job id
/// specified for job \xff`). Each byte of `arg` that is not part of a UTF-8 sequence
/// becomes a private-use character, which [`RawBytes`] turns back into that byte on output.
///
/// A character of the argument that is itself one of those 128 stands for its own four
/// bytes, so that every argument prints back exactly.
pub fn arg_string(arg: std::ffi::OsString) -> String {
    use std::os::unix::ffi::OsStringExt;
    let bytes = arg.into_vec();
    let mut s = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        if valid.chars().any(|c| raw_byte_of(c).is_some()) {
            for c in valid.chars() {
                if raw_byte_of(c).is_some() {
                    let mut buf = [0; 4];
                    for &b in c.encode_utf8(&mut buf).as_bytes() {
                        s.push(raw_byte_char(b));
                    }
                } else {
                    s.push(c);
                }
            }
        } else {
            s.push_str(valid);
        }
        for &b in chunk.invalid() {
            s.push(raw_byte_char(b));
        }
    }
    s
}

/// The character that stands for a byte of an argument that is not UTF-8 (0x80..=0xFF;
/// a byte below 0x80 is always valid UTF-8).
pub fn raw_byte_char(b: u8) -> char {
    char::from_u32(RAW_BYTE_BASE + u32::from(b)).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// The byte a character made by [`arg_string`] stands for.
fn raw_byte_of(c: char) -> Option<u8> {
    let n = u32::from(c).checked_sub(RAW_BYTE_BASE)?;
    u8::try_from(n).ok().filter(|&b| b >= 0x80)
}

/// A writer that prints the characters [`arg_string`] made as the bytes they stand for,
/// and everything else unchanged. A character split across two writes is put together.
pub struct RawBytes<W: Write> {
    inner: W,
    /// The start of a 4-byte sequence that the last write ended in.
    held: Vec<u8>,
}

impl<W: Write> RawBytes<W> {
    pub fn new(inner: W) -> Self {
        RawBytes {
            inner,
            held: Vec::new(),
        }
    }

    /// The writer underneath, with anything held back written to it.
    pub fn into_inner(mut self) -> W
    where
        W: Default,
    {
        let _ = self.flush();
        std::mem::take(&mut self.inner)
    }

    fn write_decoded(&mut self, buf: &[u8]) -> std::io::Result<()> {
        let mut out = Vec::with_capacity(buf.len());
        let mut i = 0;
        while i < buf.len() {
            // Every raw-byte character is F4 8F BE/BF xx in UTF-8.
            if buf[i] == 0xF4 {
                let rest = &buf[i..];
                if rest.len() < 4 && rest.iter().skip(1).all(|&b| (0x80..0xC0).contains(&b)) {
                    // Maybe the start of one: wait for the next write.
                    self.held.extend_from_slice(rest);
                    break;
                }
                if let Some(c) = rest
                    .get(..4)
                    .and_then(|r| std::str::from_utf8(r).ok())
                    .and_then(|s| s.chars().next())
                    && let Some(b) = raw_byte_of(c)
                {
                    out.push(b);
                    i += 4;
                    continue;
                }
            }
            out.push(buf[i]);
            i += 1;
        }
        self.inner.write_all(&out)
    }
}

impl<W: Write> Write for RawBytes<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.held.is_empty() && !buf.contains(&0xF4) {
            self.inner.write_all(buf)?;
            return Ok(buf.len());
        }
        let mut joined = std::mem::take(&mut self.held);
        joined.extend_from_slice(buf);
        self.write_decoded(&joined)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.held.is_empty() {
            let held = std::mem::take(&mut self.held);
            self.inner.write_all(&held)?;
        }
        self.inner.flush()
    }
}

impl<W: Write> Drop for RawBytes<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;

    fn through(parts: &[&[u8]]) -> Vec<u8> {
        let mut w = RawBytes::new(Vec::new());
        for p in parts {
            w.write_all(p).unwrap();
        }
        w.into_inner()
    }

    #[test]
    fn arguments_that_are_not_utf8_print_back_as_their_bytes() {
        for raw in [
            &b"\xff"[..],
            b"1_\xff",
            b"\xff\xfe",
            b"\xe6\x97",
            b"a\x80b\xc3",
            b"\xf4\x8f\xbe",
        ] {
            let arg = arg_string(OsString::from_vec(raw.to_vec()));
            let text = format!("Invalid job id specified for job {arg}\n");
            let mut want = b"Invalid job id specified for job ".to_vec();
            want.extend_from_slice(raw);
            want.push(b'\n');
            assert_eq!(through(&[text.as_bytes()]), want, "{raw:?}");
        }
    }

    #[test]
    fn utf8_arguments_are_unchanged() {
        for s in ["", "12", "日本語", "1_日本", "\u{10ff7f}", "\u{10fffe}x"] {
            let arg = arg_string(OsString::from(s));
            assert_eq!(through(&[arg.as_bytes()]), s.as_bytes());
            if !s.contains('\u{10fffe}') {
                assert_eq!(arg, s);
            }
        }
    }

    #[test]
    fn a_raw_byte_split_across_writes_is_put_together() {
        let arg = arg_string(OsString::from_vec(b"x\xffy".to_vec()));
        let b = arg.as_bytes();
        for cut in 0..=b.len() {
            assert_eq!(through(&[&b[..cut], &b[cut..]]), b"x\xffy", "cut {cut}");
        }
        // A held start that never completes is printed as it was.
        assert_eq!(through(&[b"a\xf4\x8f"]), b"a\xf4\x8f");
        // Bytes that are no character at all pass through, even at the end of a write.
        for bytes in [&b"\xf4a"[..], b"\xf4\x8fa", b"\xf4\x8f\xbe\xff", b"x\xf4"] {
            assert_eq!(through(&[bytes]), bytes);
            assert_eq!(through(&[bytes, b"z"]), [bytes, b"z"].concat());
        }
    }
}
