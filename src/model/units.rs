//! Slurm's `convert_num_unit2`: numbers with K/M/G/T/P suffixes.

/// Unit a number is expressed in, as Slurm's UNIT_* constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unit {
    None = 0,
    Kilo = 1,
    Mega = 2,
    Giga = 3,
    Tera = 4,
    Peta = 5,
}

/// How far to convert, as CONVERT_NUM_UNIT_* flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Convert {
    /// Convert while no precision is lost (half values such as 2.5G count as exact).
    Exact,
    /// Convert as far as the value allows.
    Aggressive,
    /// Leave the number in its unit (`--noconvert`).
    No,
    /// Convert into one unit (`--units`).
    To(Unit),
}

const SUFFIX: [&str; 6] = ["", "K", "M", "G", "T", "P"];

pub fn convert_num_unit(num: f64, unit: Unit, convert: Convert) -> String {
    if num as i64 == 0 {
        return "0".to_string();
    }
    let divisor = 1024.0;
    let mut num = num;
    let mut level = unit as i32;
    match convert {
        Convert::To(target) => {
            let target = target as i32;
            while target < level {
                num *= divisor;
                level -= 1;
            }
            while target > level {
                num /= divisor;
                level += 1;
            }
        }
        Convert::No => {}
        Convert::Exact => {
            while num >= divisor && (num as u64).is_multiple_of(512) {
                num /= divisor;
                level += 1;
            }
        }
        Convert::Aggressive => {
            while num >= divisor {
                num /= divisor;
                level += 1;
            }
        }
    }
    let suffix = SUFFIX.get(level as usize).copied().unwrap_or("?");
    let whole = num as u64;
    if whole as f64 == num {
        format!("{whole}{suffix}")
    } else {
        format!("{num:.2}{suffix}")
    }
}

/// A size in megabytes as squeue, scontrol and TRES strings print it (`1G`, `4000M`, `2.50G`).
pub fn mb_str(mb: u64) -> String {
    convert_num_unit(mb as f64, Unit::Mega, Convert::Exact)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_conversion_keeps_precision() {
        assert_eq!(mb_str(1024), "1G");
        assert_eq!(mb_str(2048), "2G");
        assert_eq!(mb_str(4000), "4000M");
        assert_eq!(mb_str(2560), "2.50G");
        assert_eq!(mb_str(0), "0");
        assert_eq!(mb_str(16000), "16000M");
    }

    #[test]
    fn aggressive_and_fixed_units() {
        assert_eq!(
            convert_num_unit(1536.0, Unit::Kilo, Convert::Aggressive),
            "1.50M"
        );
        assert_eq!(
            convert_num_unit(1024.0, Unit::Mega, Convert::To(Unit::Giga)),
            "1G"
        );
        assert_eq!(convert_num_unit(1024.0, Unit::Mega, Convert::No), "1024M");
    }
}
