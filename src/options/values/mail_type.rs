//! `--mail-type`: Slurm's `parse_mail_type` and `print_mail_type`
//! (`src/common/proc_args.c`) and `arg_set_mail_type` (`src/common/slurm_opt.c`).
//!
//! A comma list of NONE, BEGIN, END, FAIL, REQUEUE, ALL, INVALID_DEPEND, STAGE_OUT,
//! TIME_LIMIT, TIME_LIMIT_90, TIME_LIMIT_80, TIME_LIMIT_50, ARRAY_TASKS (any case).
//! Unknown words are ignored; the value is an error only when it names no known word at
//! all. `NONE` clears everything and ends the list. Repeated options OR together (the
//! caller keeps the union).

use super::ValueError;
use crate::model::cnum::c_bytes;

/// A set of MAIL_* flags (Slurm's bit values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MailType(pub u16);

impl MailType {
    pub const BEGIN: u16 = 1 << 0;
    pub const END: u16 = 1 << 1;
    pub const FAIL: u16 = 1 << 2;
    pub const REQUEUE: u16 = 1 << 3;
    pub const TIME100: u16 = 1 << 4;
    pub const TIME90: u16 = 1 << 5;
    pub const TIME80: u16 = 1 << 6;
    pub const TIME50: u16 = 1 << 7;
    pub const STAGE_OUT: u16 = 1 << 8;
    pub const ARRAY_TASKS: u16 = 1 << 9;
    pub const INVALID_DEPEND: u16 = 1 << 10;
    /// What `ALL` sets (not the time limits nor ARRAY_TASKS).
    pub const ALL: u16 = Self::INVALID_DEPEND
        | Self::BEGIN
        | Self::END
        | Self::FAIL
        | Self::REQUEUE
        | Self::STAGE_OUT;

    pub fn contains(self, flag: u16) -> bool {
        self.0 & flag != 0
    }

    /// `print_mail_type`: `NONE`, or the set flags in Slurm's order joined by `,`.
    pub fn display(self) -> String {
        if self.0 == 0 {
            return "NONE".to_string();
        }
        const ORDER: [(u16, &str); 11] = [
            (MailType::ARRAY_TASKS, "ARRAY_TASKS"),
            (MailType::INVALID_DEPEND, "INVALID_DEPEND"),
            (MailType::BEGIN, "BEGIN"),
            (MailType::END, "END"),
            (MailType::FAIL, "FAIL"),
            (MailType::REQUEUE, "REQUEUE"),
            (MailType::STAGE_OUT, "STAGE_OUT"),
            (MailType::TIME50, "TIME_LIMIT_50"),
            (MailType::TIME80, "TIME_LIMIT_80"),
            (MailType::TIME90, "TIME_LIMIT_90"),
            (MailType::TIME100, "TIME_LIMIT"),
        ];
        ORDER
            .iter()
            .filter(|(bit, _)| self.contains(*bit))
            .map(|(_, name)| *name)
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// `parse_mail_type`: the flags named, or `None` where Slurm returns INFINITE16 (no known
/// word and no NONE).
pub fn mail_type_bits(s: &str) -> Option<MailType> {
    let mut rc: u16 = 0;
    let mut none_set = false;
    for tok in c_bytes(s).split(|&c| c == b',').filter(|t| !t.is_empty()) {
        let word = String::from_utf8_lossy(tok).to_ascii_uppercase();
        rc |= match word.as_str() {
            "NONE" => {
                rc = 0;
                none_set = true;
                break;
            }
            "ARRAY_TASKS" => MailType::ARRAY_TASKS,
            "BEGIN" => MailType::BEGIN,
            "END" => MailType::END,
            "FAIL" => MailType::FAIL,
            "INVALID_DEPEND" => MailType::INVALID_DEPEND,
            "REQUEUE" => MailType::REQUEUE,
            "ALL" => MailType::ALL,
            "STAGE_OUT" => MailType::STAGE_OUT,
            "TIME_LIMIT" => MailType::TIME100,
            "TIME_LIMIT_90" => MailType::TIME90,
            "TIME_LIMIT_80" => MailType::TIME80,
            "TIME_LIMIT_50" => MailType::TIME50,
            _ => 0,
        };
    }
    (rc != 0 || none_set).then_some(MailType(rc))
}

/// `--mail-type`: `Invalid --mail-type specification` (exit 255) when nothing is named.
pub fn parse_mail_type(s: &str) -> Result<MailType, ValueError> {
    mail_type_bits(s).ok_or_else(|| ValueError::invalid_spec("--mail-type"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;

    fn bits(s: &str) -> u16 {
        parse_mail_type(s).unwrap().0
    }

    #[test]
    fn words() {
        assert_eq!(bits("BEGIN"), MailType::BEGIN);
        assert_eq!(bits("begin,End"), MailType::BEGIN | MailType::END);
        assert_eq!(bits("FAIL"), MailType::FAIL);
        assert_eq!(bits("REQUEUE"), MailType::REQUEUE);
        assert_eq!(bits("ALL"), MailType::ALL);
        assert_eq!(bits("INVALID_DEPEND"), MailType::INVALID_DEPEND);
        assert_eq!(bits("STAGE_OUT"), MailType::STAGE_OUT);
        assert_eq!(bits("TIME_LIMIT"), MailType::TIME100);
        assert_eq!(bits("TIME_LIMIT_90"), MailType::TIME90);
        assert_eq!(bits("TIME_LIMIT_80"), MailType::TIME80);
        assert_eq!(bits("TIME_LIMIT_50"), MailType::TIME50);
        assert_eq!(bits("ARRAY_TASKS"), MailType::ARRAY_TASKS);
        assert_eq!(bits("NONE"), 0);
        assert_eq!(bits("BEGIN,NONE,END"), 0);
        assert_eq!(bits("BEGIN,bogus"), MailType::BEGIN);
        assert_eq!(bits(",,END,"), MailType::END);
    }

    #[test]
    fn nothing_known_is_an_error() {
        for s in ["", "bogus", ",", "BEGINS", " BEGIN"] {
            let e = parse_mail_type(s).unwrap_err();
            assert_eq!(e.message(), "Invalid --mail-type specification", "{s:?}");
            assert_eq!(e.exit_code(1), 255);
        }
    }

    #[test]
    fn display_order() {
        assert_eq!(MailType(0).display(), "NONE");
        assert_eq!(
            MailType(MailType::ALL).display(),
            "INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT"
        );
        assert_eq!(
            MailType(MailType::TIME100 | MailType::TIME50 | MailType::ARRAY_TASKS).display(),
            "ARRAY_TASKS,TIME_LIMIT_50,TIME_LIMIT"
        );
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(19, "BEGINDFALONRQUT_,", 20, 10000) {
            let _ = parse_mail_type(&s).map(|m| m.display());
        }
    }
}
