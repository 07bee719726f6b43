//! The `ackwire` command-line tool.

fn main() {}
