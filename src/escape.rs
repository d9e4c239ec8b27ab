//! Text from outside made safe for each document it enters. A store or a table can come from
//! another machine, so every text it carries (a path, a name, `found_by`, `found_at`, a
//! source) is hostile until shown otherwise; each renderer passes it through the function of
//! its document, and only this module decides what is escaped:
//!
//! - [`comment_text`]: inside a comment of generated Rust (`// ...`) or C (`/* ... */`);
//! - [`markdown_text`] and [`markdown_code`]: Markdown text and code spans (GitHub's flavour,
//!   tables included), where HTML would be rendered and `|` ends a cell;
//! - [`xml_text`]: SVG (XML 1.0) character data and attribute values;
//! - [`terminal_text`]: text for a terminal, where ESC, BEL and their kin are commands;
//! - [`one_line`]: an error message, which must stay one line.
//!
//! Each writes a character it will not let through as `\u{hex}`, so nothing is lost from
//! sight and the result says what was there.

use std::fmt::Write as _;

/// `c` as `\u{hex}`.
fn code_point(out: &mut String, c: char) {
    let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
}

/// Whether `c` changes how a terminal (or an editor) shows what follows: C0 and C1 controls,
/// DEL, and the bidirectional embeddings, overrides and isolates (which reorder a line, the
/// "Trojan source" characters).
fn steers_a_terminal(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` as it may appear inside a comment of any generated code: printable ASCII is kept,
/// except that `\` is doubled and the sequences `*/`, `/*` and `??` get a `\` between their
/// two characters; every other character (line ends, control characters, non-ASCII) becomes
/// `\u{hex}`. The result is one line of printable ASCII.
///
/// A newline would end a `//` comment and let the rest compile as Rust, a `*/` would end a C
/// comment, a `/*` inside one is a `-Wcomment` error under `-Werror`, `??/` is a trigraph (a
/// backslash in C99), and bidirectional-override characters are refused by rustc and warned
/// about by gcc: none of these can occur in the result.
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
            _ => code_point(&mut out, c),
        }
    }
    out
}

/// The characters that start markup inside a line of GitHub's Markdown: escapes, code spans,
/// emphasis and strikethrough, links and images, HTML tags and autolinks, entities, table
/// cells, a heading's closing `#`s, math. (Those that mean something only at the start of a
/// line, lists and headings, never start a cell or the text after a heading's `## `.)
pub const MARKDOWN_SPECIAL: &str = "\\`*_[]<>&|~#!$";

/// `text` as Markdown text that renders as exactly these characters, inside a paragraph, a
/// heading or a table cell: each character of [`MARKDOWN_SPECIAL`] is backslash-escaped (so no
/// emphasis, link, image, HTML tag, entity or cell boundary can start; CommonMark lets any
/// ASCII punctuation be escaped so), and characters that steer a terminal (line ends included,
/// which would end a table row) become `\u{hex}`.
#[must_use]
pub fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if MARKDOWN_SPECIAL.contains(c) {
            out.push('\\');
            out.push(c);
        } else if steers_a_terminal(c) {
            // `\u{hex}`, its backslash escaped in turn, so that it shows as it is.
            let _ = write!(out, "\\\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` as a Markdown code span (`` `text` ``) that shows exactly these characters: fenced
/// by more backticks than any run inside it, padded when it starts or ends with one, `|`
/// escaped (GitHub's tables split a row at a bare `|` even inside a code span; the escape is
/// removed there), and characters that steer a terminal written as `\u{hex}`. Inside a code
/// span nothing else is markup: HTML, entities and emphasis show as they are.
#[must_use]
pub fn markdown_code(text: &str) -> String {
    let mut body = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' => body.push_str("\\|"),
            c if steers_a_terminal(c) => code_point(&mut body, c),
            c => body.push(c),
        }
    }
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    if body.is_empty() {
        return "` `".to_string();
    }
    let fence = "`".repeat(longest + 1);
    let pad = if body.starts_with('`') || body.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{body}{pad}{fence}")
}

/// `text` fit for SVG (XML 1.0) character data and attribute values: `&`, `<`, `>`, `"` and
/// `'` as entities; characters XML 1.0 does not allow (C0 controls but tab, newline and
/// carriage return, the non-characters U+FFFE and U+FFFF) and those that steer a terminal or
/// reorder a line (C1 controls, DEL, bidirectional overrides) as `\u{hex}`, so the document
/// is always well-formed.
#[must_use]
pub fn xml_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\u{fffe}' | '\u{ffff}' => code_point(&mut out, c),
            c if steers_a_terminal(c) => code_point(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// `text` fit for a terminal: characters that steer it (ESC, BEL, backspace, carriage return,
/// C1 controls, DEL, bidirectional overrides) written as `\u{hex}`; newlines and tabs, which
/// lay out the text, are kept.
#[must_use]
pub fn terminal_text(text: &str) -> String {
    if !text
        .chars()
        .any(|c| c != '\n' && c != '\t' && steers_a_terminal(c))
    {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c if steers_a_terminal(c) => code_point(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// A JSON document (as serde writes it: control characters inside strings already escaped)
/// fit for a terminal: the characters that steer one and that JSON lets through raw (DEL, C1
/// controls, bidirectional overrides, all inside strings) written as `\uXXXX` escapes, which
/// JSON reads back as the same text. The layout's newlines and tabs are kept.
#[must_use]
pub fn json_text(doc: &str) -> String {
    if !doc
        .chars()
        .any(|c| c != '\n' && c != '\t' && steers_a_terminal(c))
    {
        return doc.to_string();
    }
    let mut out = String::with_capacity(doc.len() + 16);
    for c in doc.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c if steers_a_terminal(c) => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` as one line for a terminal: as [`terminal_text`], newlines and tabs included.
#[must_use]
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if steers_a_terminal(c) {
            code_point(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hostile texts of every kind the renderers meet.
    const HOSTILE: [&str; 8] = [
        "<img src=x onerror=alert(1)>",
        "a|b|c",
        "**bold** _it_ [link](http://x) ![i](y) `code` ``two``",
        "&amp; &#x41; <!-- c -->",
        "\u{1b}[31mred\u{7} bell\u{8}\r\n",
        "\u{ffff}\u{fffe}\u{0}\u{9b}2J",
        "\u{202e}evil\u{2066}",
        "www.example.com https://x.org a@b.c ~~s~~ # h",
    ];

    #[test]
    fn plain_text_is_kept() {
        let s = "Generated at 2026-11-21T03:15:42Z from results/best.json (a * b) >> c.";
        assert_eq!(comment_text(s), s);
        assert_eq!(terminal_text("rook a1\n\tb1"), "rook a1\n\tb1");
        assert_eq!(markdown_text("Grant Osborne"), "Grant Osborne");
        assert_eq!(markdown_code("store.json"), "`store.json`");
        assert_eq!(xml_text("rook a1"), "rook a1");
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

    #[test]
    fn markdown_text_has_no_markup_left() {
        for raw in HOSTILE {
            let got = markdown_text(raw);
            // Every special character is escaped: none stands alone to start markup.
            let mut chars = got.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '\\' {
                    let next = chars.next().expect("an escape escapes something");
                    assert!(next.is_ascii_punctuation(), "{got}");
                    continue;
                }
                assert!(!MARKDOWN_SPECIAL.contains(c), "{c:?} bare in {got}");
                assert!(!steers_a_terminal(c), "{c:?} raw in {got}");
            }
            assert!(!got.contains('\n'), "{got}");
        }
        assert_eq!(markdown_text("a|b"), "a\\|b");
        assert_eq!(markdown_text("<b>"), "\\<b\\>");
        assert_eq!(
            markdown_text("Tord Romstad's (c. 2007)"),
            "Tord Romstad's (c. 2007)"
        );
        assert_eq!(markdown_text("\u{1b}"), "\\\\u{1b}");
    }

    #[test]
    fn markdown_code_spans_hold_their_text() {
        assert_eq!(markdown_code("a`b"), "``a`b``");
        assert_eq!(markdown_code("`x"), "`` `x ``");
        assert_eq!(markdown_code("a|b"), "`a\\|b`");
        assert_eq!(markdown_code(""), "` `");
        for raw in HOSTILE {
            let got = markdown_code(raw);
            assert!(
                !got.contains('\n') && !got.chars().any(steers_a_terminal),
                "{got}"
            );
            assert!(!got.replace("\\|", "").contains('|'), "{got}");
        }
    }

    #[test]
    fn xml_text_is_always_well_formed() {
        for raw in HOSTILE {
            let got = xml_text(raw);
            for c in got.chars() {
                let allowed = matches!(c, '\t' | '\n' | '\r' | ' '..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..);
                assert!(allowed && !steers_a_terminal(c), "{c:?} in {got:?}");
            }
            assert!(!got.contains('<') && !got.contains('"'), "{got}");
            assert!(
                got.split('&')
                    .skip(1)
                    .all(|s| ["amp;", "lt;", "gt;", "quot;", "apos;"]
                        .iter()
                        .any(|e| s.starts_with(e))),
                "{got}"
            );
        }
        assert_eq!(xml_text("\u{ffff}"), "\\u{ffff}");
    }

    #[test]
    fn json_stays_json_and_shows_no_controls() {
        for raw in HOSTILE {
            let doc = serde_json::to_string_pretty(&serde_json::json!({"a": raw})).unwrap();
            let got = json_text(&doc);
            let back: serde_json::Value = serde_json::from_str(&got).unwrap();
            assert_eq!(back["a"], raw);
            assert!(
                got.chars()
                    .all(|c| c == '\n' || c == '\t' || !steers_a_terminal(c)),
                "{got:?}"
            );
        }
    }

    #[test]
    fn terminal_text_shows_controls_instead_of_obeying_them() {
        assert_eq!(
            terminal_text("a\u{1b}[2Jb\u{7}\r\n"),
            "a\\u{1b}[2Jb\\u{7}\\u{d}\n"
        );
        assert_eq!(one_line("a\nb\u{9b}"), "a\\u{a}b\\u{9b}");
        for raw in HOSTILE {
            let got = terminal_text(raw);
            assert!(
                got.chars()
                    .all(|c| c == '\n' || c == '\t' || !steers_a_terminal(c)),
                "{got:?}"
            );
            assert!(!one_line(raw).chars().any(steers_a_terminal));
        }
    }
}
