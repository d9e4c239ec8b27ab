//! Trimming an LRAT proof to the steps its empty clause needs, so that the certificate kept is
//! small. Not part of the trust base: the trimmed proof is checked by [`super::lrat`] like any
//! other.

use std::collections::HashMap;
use std::io::BufRead;

use super::lrat::{next_int, LratError};

/// Keeps only the additions that the empty clause depends on (through the hints, from the
/// last step backwards), in their order and with their ids, and drops the deletions: a
/// smaller proof of the same CNF, which [`check`](super::lrat::check) checks like any other. Lines that do not
/// parse are refused here too.
///
/// # Errors
/// [`LratError`] when a line does not parse or the proof has no empty clause.
pub fn trim(originals: usize, mut proof: impl BufRead) -> Result<Vec<u8>, LratError> {
    // Every addition: its id and the byte range of its line in `text`.
    let mut text = Vec::new();
    let mut steps: Vec<(u64, usize, usize)> = Vec::new();
    let mut hints_of: Vec<Vec<u64>> = Vec::new();
    let mut line = Vec::new();
    let mut line_no = 0u64;
    let mut empty = None;
    while empty.is_none() {
        line.clear();
        let n = proof
            .read_until(b'\n', &mut line)
            .map_err(|e| LratError::Io(e.to_string()))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let syntax = |message: &str| LratError::Syntax {
            line: line_no,
            message: message.to_string(),
        };
        let mut pos = 0;
        let id = match next_int(&line, &mut pos) {
            None => continue,
            Some(Ok(v)) if v > 0 => v as u64,
            Some(_) if line.trim_ascii_start().starts_with(b"c") => continue,
            Some(_) => return Err(syntax("expected a clause id")),
        };
        if line[pos..].trim_ascii_start().starts_with(b"d") {
            continue;
        }
        let mut part = 0;
        let mut lits = 0;
        let mut hints = Vec::new();
        while let Some(t) = next_int(&line, &mut pos) {
            let v = t.map_err(|()| syntax("expected a number"))?;
            if v == 0 {
                part += 1;
                if part == 2 {
                    break;
                }
            } else if part == 0 {
                lits += 1;
            } else {
                hints.push(v.unsigned_abs());
            }
        }
        if part != 2 {
            return Err(syntax("addition without its two terminating 0s"));
        }
        let start = text.len();
        text.extend_from_slice(&line);
        if !line.ends_with(b"\n") {
            text.push(b'\n');
        }
        steps.push((id, start, text.len()));
        hints_of.push(hints);
        if lits == 0 {
            empty = Some(steps.len() - 1);
        }
    }
    let Some(last) = empty else {
        return Err(LratError::Incomplete {
            steps: steps.len() as u64,
        });
    };
    let index: HashMap<u64, usize> = steps.iter().enumerate().map(|(i, s)| (s.0, i)).collect();
    let mut needed = vec![false; last + 1];
    needed[last] = true;
    for i in (0..=last).rev() {
        if !needed[i] {
            continue;
        }
        for h in &hints_of[i] {
            if *h > originals as u64 {
                if let Some(&j) = index.get(h) {
                    if j < i {
                        needed[j] = true;
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    for (i, &(_, a, b)) in steps[..=last].iter().enumerate() {
        if needed[i] {
            out.extend_from_slice(&text[a..b]);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prove::lrat::check;
    use crate::prove::lrat::tests::cnf;

    #[test]
    fn trimming_keeps_what_the_empty_clause_needs() {
        // Step 5 is needed, step 6 is not, step 7 is the empty clause.
        let proof = "5 1 0 1 2 0\n6 -1 0 3 4 0\n5 d 2 0\n7 0 5 3 4 0\n8 1 0 5 0\n";
        let trimmed = trim(4, proof.as_bytes()).unwrap();
        assert_eq!(
            String::from_utf8(trimmed.clone()).unwrap(),
            "5 1 0 1 2 0\n7 0 5 3 4 0\n"
        );
        assert_eq!(check(&cnf(), trimmed.as_slice()).unwrap().additions, 2);
        assert!(trim(4, "5 1 0 1 2 0\n".as_bytes()).is_err());
    }
}
