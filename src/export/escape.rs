//! Text from outside (the store path, `found_at` and anything else a store carries) made safe
//! to write inside a comment of the generated Rust (`// ...`) and C (`/* ... */`) code.
//!
//! A store can come from another machine, so its text is hostile until shown otherwise: a
//! newline would end a `//` comment and let the rest compile as Rust, a `*/` would end a C
//! comment, a `/*` inside one is a `-Wcomment` error under `-Werror`, `??/` is a trigraph (a
//! backslash in C99), and bidirectional-override characters are refused by rustc and warned
//! about by gcc. The escape keeps printable ASCII and writes everything else so that none of
//! these can occur.

/// `text` as it may appear inside a comment of any generated code: printable ASCII is kept,
/// except that `\` is doubled and the sequences `*/`, `/*` and `??` get a `\` between their
/// two characters; every other character (line ends, control characters, non-ASCII) becomes
/// `\u{hex}`. The result is one line of printable ASCII.
#[must_use]
pub fn comment_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        match c {
            '\\' => out.push_str("\\\\"),
            '*' | '/' | '?' => {
                out.push(c);
                let breaks = matches!(
                    (c, next),
                    ('*', Some('/')) | ('/', Some('*')) | ('?', Some('?'))
                );
                if breaks {
                    out.push('\\');
                }
            }
            ' '..='~' => out.push(c),
            _ => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_kept() {
        let s = "Generated at 2026-11-21T03:15:42Z from results/best.json (a * b) >> c.";
        assert_eq!(comment_text(s), s);
    }

    #[test]
    fn hostile_text_cannot_leave_a_comment() {
        let cases = [
            (
                "2026-01-01T00:00:00Z\ncompile_error!(\"x\")",
                "2026-01-01T00:00:00Z\\u{a}compile_error!(\"x\")",
            ),
            ("Z */ #error x /*", "Z *\\/ #error x /\\*"),
            ("a*/b", "a*\\/b"),
            ("/*/", "/\\*\\/"),
            ("??/", "?\\?/"),
            ("???", "?\\?\\?"),
            ("back\\", "back\\\\"),
            ("\r\t\0", "\\u{d}\\u{9}\\u{0}"),
            ("r\u{e9}s \u{202e}x", "r\\u{e9}s \\u{202e}x"),
        ];
        for (raw, want) in cases {
            let got = comment_text(raw);
            assert_eq!(got, want, "{raw:?}");
            assert!(
                !got.contains("*/") && !got.contains("/*") && !got.contains("??"),
                "{got}"
            );
            assert!(got.chars().all(|c| (' '..='~').contains(&c)), "{got:?}");
        }
    }
}
