//! The tree Slurm's `data_t` builds before a serializer prints it: null, bool, 64-bit
//! integer, float, string, list and ordered dictionary.
//!
//! One distinction matters for byte-exact output: a string field whose C pointer was NULL
//! (`data_set_string(d, NULL)`) is still a *string* node. The JSON serializer prints it as
//! `""`; the YAML serializer prints it as `!!null null`. A real null (`data_set_null`)
//! prints `null` in both. [`Value::NullStr`] is the first kind.

/// One node of the tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    /// A string node holding a NULL pointer.
    NullStr,
    List(Vec<Value>),
    Dict(Dict),
}

/// Keys in insertion order, as `data_t` dictionaries (and json-c objects) keep them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dict(pub Vec<(String, Value)>);

impl Value {
    /// `data_set_string` with a C string that may be NULL; Slurm's controller sends unset
    /// strings as NULL, so an empty field is one.
    pub fn opt_str(s: Option<&str>) -> Value {
        match s {
            Some(s) if !s.is_empty() => Value::Str(s.to_string()),
            _ => Value::NullStr,
        }
    }

    /// An empty string is a NULL pointer (see [`Value::opt_str`]).
    pub fn str(s: &str) -> Value {
        Value::opt_str(Some(s))
    }

    /// A string that is never NULL, even when empty (database columns with `''` default).
    pub fn text(s: &str) -> Value {
        Value::Str(s.to_string())
    }

    /// The parser's `STRING` dumper: NULL becomes a real null.
    pub fn str_or_null(s: Option<&str>) -> Value {
        match s {
            Some(s) => Value::Str(s.to_string()),
            None => Value::Null,
        }
    }

    pub fn int(n: impl Into<i64>) -> Value {
        Value::Int(n.into())
    }

    /// An unsigned 64-bit number stored in `data_t`'s signed integer, as C does it.
    pub fn u64_wrapping(n: u64) -> Value {
        Value::Int(n as i64)
    }

    pub fn opt_int(n: Option<impl Into<i64>>) -> Value {
        n.map_or(Value::Null, |n| Value::Int(n.into()))
    }

    /// A list of strings.
    pub fn strings<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> Value {
        Value::List(
            items
                .into_iter()
                .map(|s| Value::Str(s.as_ref().to_string()))
                .collect(),
        )
    }
}

impl Dict {
    pub fn new() -> Dict {
        Dict(Vec::new())
    }

    pub fn with_capacity(n: usize) -> Dict {
        Dict(Vec::with_capacity(n))
    }

    /// Appends a key the caller knows is new (the common, cheap case).
    pub fn push(&mut self, key: &str, value: Value) {
        self.0.push((key.to_string(), value));
    }

    /// `data_key_set` then set: replaces the value of an existing key in place.
    pub fn set(&mut self, key: &str, value: Value) {
        match self.0.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = value,
            None => self.push(key, value),
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// `data_define_dict_path`: walks `a/b/c`, creating dictionaries on the way (each new
    /// key goes at the end of its parent), and returns the leaf, which is created as null.
    pub fn path(&mut self, path: &str) -> &mut Value {
        let mut parts = path.split('/');
        let first = parts.next().unwrap_or("");
        let mut node = self.entry(first);
        for part in parts {
            if !matches!(node, Value::Dict(_)) {
                *node = Value::Dict(Dict::new());
            }
            let Value::Dict(d) = node else {
                unreachable!("just made a dictionary")
            };
            node = d.entry(part);
        }
        node
    }

    /// Sets the value at `path` (see [`Dict::path`]).
    pub fn put(&mut self, path: &str, value: Value) {
        *self.path(path) = value;
    }

    fn entry(&mut self, key: &str) -> &mut Value {
        let idx = match self.0.iter().position(|(k, _)| k == key) {
            Some(i) => i,
            None => {
                self.0.push((key.to_string(), Value::Null));
                self.0.len() - 1
            }
        };
        &mut self.0[idx].1
    }
}

impl From<Dict> for Value {
    fn from(d: Dict) -> Value {
        Value::Dict(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_create_nested_dicts_in_order() {
        let mut d = Dict::new();
        d.put("time/elapsed", Value::Int(1));
        d.put("exit_code", Value::Null);
        d.put("time/end", Value::Int(2));
        let keys: Vec<&str> = d.0.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["time", "exit_code"]);
        let Some(Value::Dict(t)) = d.get("time") else {
            panic!("time is a dict")
        };
        assert_eq!(t.0.len(), 2);
        assert_eq!(t.get("end"), Some(&Value::Int(2)));
    }

    #[test]
    fn set_replaces_in_place() {
        let mut d = Dict::new();
        d.push("a", Value::Int(1));
        d.push("b", Value::Int(2));
        d.set("a", Value::Int(3));
        assert_eq!(d.0[0], ("a".to_string(), Value::Int(3)));
        assert_eq!(d.0.len(), 2);
    }

    #[test]
    fn empty_strings_are_null_pointers() {
        assert_eq!(Value::str(""), Value::NullStr);
        assert_eq!(Value::text(""), Value::Str(String::new()));
        assert_eq!(Value::str_or_null(None), Value::Null);
    }
}
