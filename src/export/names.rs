//! The names of the generated code: `--prefix P` puts `P` in front of every public identifier,
//! so that an export can sit beside an engine's own `rook_attacks` (or beside another export).
//!
//! In C, `P` lower-case starts functions, types and the extern tables, and `P` upper-case starts
//! macros and constants (`--prefix mh_` gives `mh_rook_attacks`, `struct mh_magic_entry`,
//! `MH_ROOK_MAGICS`, `MH_ROOK_TABLE_SIZE`, `MH_IMPLEMENTATION`). The helpers that must be
//! visible to the inline lookups but are not meant to be called (`magichunt_slot`, the tables)
//! take `P` too, or `magichunt_` without a prefix. In Rust the items a glob import brings in
//! take it: functions `mh_`, constants `MH_`, the type `Mh` (`MhMagicEntry`).

use crate::error::ParseError;

/// The longest prefix accepted.
pub const MAX_PREFIX: usize = 32;

/// A validated `--prefix`, empty when none was given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prefix(String);

impl Prefix {
    /// Checks `p`: ASCII letters, digits and `_`, starting with a letter (a leading `_` makes
    /// identifiers reserved in C), without `__` (reserved in C++, and not snake case in Rust),
    /// at most 32 characters (`MAX_PREFIX`).
    ///
    /// # Errors
    /// [`ParseError::Other`] naming the prefix and the rule it breaks.
    pub fn new(p: &str) -> Result<Prefix, ParseError> {
        let bad = |why: &str| {
            Err(ParseError::Other(format!(
                "invalid prefix '{}': {why}",
                p.escape_default()
            )))
        };
        if p.is_empty() {
            return bad("empty (leave out --prefix for none)");
        }
        if p.len() > MAX_PREFIX {
            return bad(&format!("longer than {MAX_PREFIX} characters"));
        }
        if !p.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return bad(
                "must start with an ASCII letter (a C identifier start; a leading _ is reserved)",
            );
        }
        if !p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return bad("only ASCII letters, digits and _ may follow");
        }
        if p.contains("__") {
            return bad("__ is reserved in C++");
        }
        Ok(Prefix(p.to_string()))
    }

    /// No prefix: the plain names (`rook_attacks`, `ROOK_MAGICS`).
    #[must_use]
    pub fn none() -> Prefix {
        Prefix::default()
    }

    /// The prefix as given (empty for none).
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether no prefix was given.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Lower-case: functions, types, tables (`mh_`).
    #[must_use]
    pub fn lower(&self) -> String {
        self.0.to_ascii_lowercase()
    }

    /// Upper-case: macros and constants (`MH_`).
    #[must_use]
    pub fn upper(&self) -> String {
        self.0.to_ascii_uppercase()
    }

    /// Upper camel case for a Rust type (`mh_` gives `Mh`, `my_engine_` gives `MyEngine`).
    #[must_use]
    pub fn camel(&self) -> String {
        self.0
            .split('_')
            .filter(|w| !w.is_empty())
            .map(|w| {
                let lower = w.to_ascii_lowercase();
                let mut cs = lower.chars();
                cs.next()
                    .map(|c| c.to_ascii_uppercase().to_string() + cs.as_str())
                    .unwrap_or_default()
            })
            .collect()
    }

    /// The namespace of the C helpers and tables: the prefix, or `magichunt_` without one.
    #[must_use]
    pub fn internal_lower(&self) -> String {
        if self.is_empty() {
            "magichunt_".into()
        } else {
            self.lower()
        }
    }

    /// The namespace of the C guard macros: the prefix upper-case, or `MAGICHUNT_`.
    #[must_use]
    pub fn internal_upper(&self) -> String {
        self.internal_lower().to_ascii_uppercase()
    }

    /// The macro one translation unit defines before the include to get the definitions:
    /// `MAGICHUNT_IMPLEMENTATION`, or `MH_IMPLEMENTATION` with `--prefix mh_`.
    #[must_use]
    pub fn implementation_macro(&self) -> String {
        format!("{}IMPLEMENTATION", self.internal_upper())
    }

    /// Fills a template: `$p` lower, `$P` upper, `$T` camel, `$i` and `$I` the C helper
    /// namespace (see [`Prefix::internal_lower`]).
    #[must_use]
    pub fn apply(&self, template: &str) -> String {
        template
            .replace("$p", &self.lower())
            .replace("$P", &self.upper())
            .replace("$T", &self.camel())
            .replace("$i", &self.internal_lower())
            .replace("$I", &self.internal_upper())
    }
}

impl std::str::FromStr for Prefix {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Prefix, ParseError> {
        Prefix::new(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_prefixes_and_their_cases() {
        let p = Prefix::new("mh_").unwrap();
        assert_eq!(
            p.apply("$prook_attacks $PROOK_MAGICS $TMagicEntry $islot $IIMPLEMENTATION"),
            "mh_rook_attacks MH_ROOK_MAGICS MhMagicEntry mh_slot MH_IMPLEMENTATION"
        );
        assert_eq!(Prefix::new("My_Engine2_").unwrap().camel(), "MyEngine2");
        assert_eq!(Prefix::new("X").unwrap().lower(), "x");
        let none = Prefix::none();
        assert_eq!(
            none.apply("$prook_attacks $PROOK_MAGICS $TMagicEntry $islot"),
            "rook_attacks ROOK_MAGICS MagicEntry magichunt_slot"
        );
        assert_eq!(none.implementation_macro(), "MAGICHUNT_IMPLEMENTATION");
    }

    #[test]
    fn invalid_prefixes_are_refused_with_the_reason() {
        for bad in [
            "",
            "_mh",
            "9x",
            "mh-",
            "mh__x",
            "m h",
            "é_",
            "a\n",
            "a*/",
            &"a".repeat(33),
        ] {
            let e = Prefix::new(bad).unwrap_err().to_string();
            assert!(e.starts_with("invalid prefix '"), "{bad:?}: {e}");
            assert_eq!(e.lines().count(), 1, "{e}");
        }
    }
}
