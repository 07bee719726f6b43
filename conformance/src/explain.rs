//! Annotated hex dumps (in progress).
