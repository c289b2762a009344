//! Printing an error as one line, with its causes on request.
//!
//! The first contact with a missing backend should be one line that says what is missing and
//! what to install; the detail (every library file tried, the loader's reasons) stays in the
//! error's source chain and the backend's detail, which `--verbose` prints.

use std::error::Error;

use gpuarrays::BackendChoiceError;

/// The lines `--verbose` adds under a backend's one-line error: its causes, then the
/// backend's detail (e.g. every library file tried and why it did not load).
pub fn verbose_lines(error: &BackendChoiceError) -> Vec<String> {
    let mut lines: Vec<String> = causes(error)
        .into_iter()
        .map(|c| format!("caused by: {c}"))
        .collect();
    lines.extend(error.detail().iter().cloned());
    lines
}

/// The messages of `error`'s sources, outermost first, leaving out each one that its
/// parent's message already contains (wrappers that print their source inline).
pub fn causes(error: &dyn Error) -> Vec<String> {
    let mut out = Vec::new();
    let mut parent = error.to_string();
    let mut next = error.source();
    while let Some(e) = next {
        let message = e.to_string();
        if !parent.contains(&message) {
            out.push(message.clone());
        }
        parent = message;
        next = e.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error with a message and an optional source.
    #[derive(Debug)]
    struct Layer(&'static str, Option<Box<Layer>>);

    impl std::fmt::Display for Layer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl Error for Layer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            self.1.as_deref().map(|l| l as &(dyn Error + 'static))
        }
    }

    #[test]
    fn causes_skip_what_the_parent_already_says() {
        let detail = Layer("tried libcuda.so.1: not found", None);
        let short = Layer("no CUDA driver found", Some(Box::new(detail)));
        let top = Layer(
            "hip: not available: no CUDA driver found",
            Some(Box::new(short)),
        );
        assert_eq!(causes(&top), ["tried libcuda.so.1: not found"]);
        assert!(causes(&Layer("alone", None)).is_empty());
    }
}
