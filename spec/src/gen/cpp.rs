//! The cpp backend (being written).

use crate::model::Spec;

/// The generated files, as (path relative to the output folder, contents).
pub fn generate(_spec: &Spec) -> Vec<(String, String)> {
    Vec::new()
}
