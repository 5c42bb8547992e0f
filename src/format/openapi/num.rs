//! Floating point text exactly as the two serializers print it: json-c's `%.17g` (with
//! `.0` added when the result looks like an integer) and libyaml via Slurm's `%lf`.

/// json-c 0.16 `json_object_double_to_json_string_format` with its default format.
pub fn json_double(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    let mut s = g17(x);
    if !s.contains('.') && !s.contains('e') {
        s.push_str(".0");
    }
    s
}

/// Slurm's YAML serializer: `xstrdup_printf("%lf", value)`.
pub fn yaml_double(x: f64) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    format!("{x:.6}")
}

/// C's `printf("%.17g", x)` for a finite `x`.
fn g17(x: f64) -> String {
    const P: i32 = 17;
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // The exponent C uses is that of the value rounded to P significant digits.
    let e_form = format!("{:.*e}", (P - 1) as usize, x);
    let (mantissa, exp) = e_form.split_once('e').unwrap_or((&e_form, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..P).contains(&exp) {
        let mantissa = strip_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
    } else {
        let decimals = (P - 1 - exp) as usize;
        strip_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

/// `%g` without `#`: trailing zeros of the fraction go, and the point with them.
fn strip_zeros(s: &str) -> &str {
    if !s.contains('.') {
        return s;
    }
    s.trim_end_matches('0').trim_end_matches('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_doubles_as_json_c() {
        assert_eq!(json_double(1.0), "1.0");
        assert_eq!(json_double(2.0), "2.0");
        assert_eq!(json_double(0.0), "0.0");
        assert_eq!(json_double(-0.0), "-0.0");
        assert_eq!(json_double(0.1), "0.10000000000000001");
        assert_eq!(json_double(1.5), "1.5");
        assert_eq!(json_double(-2.25), "-2.25");
        assert_eq!(json_double(1e17), "1e+17");
        assert_eq!(json_double(1.2345e17), "1.2345e+17");
        assert_eq!(json_double(12345678901234567.0), "12345678901234568.0");
        assert_eq!(json_double(0.0001), "0.0001");
        assert_eq!(json_double(0.00001), "1.0000000000000001e-05");
        assert_eq!(json_double(1e-300), "1e-300");
        assert_eq!(json_double(4294967294.0), "4294967294.0");
        assert_eq!(json_double(f64::NAN), "NaN");
        assert_eq!(json_double(f64::NEG_INFINITY), "-Infinity");
    }

    #[test]
    fn yaml_doubles_as_printf_lf() {
        assert_eq!(yaml_double(1.0), "1.000000");
        assert_eq!(yaml_double(2.5), "2.500000");
        assert_eq!(yaml_double(0.1234567), "0.123457");
        assert_eq!(yaml_double(1e20), "100000000000000000000.000000");
        assert_eq!(yaml_double(f64::INFINITY), "inf");
        assert_eq!(yaml_double(-0.0), "-0.000000");
    }
}
