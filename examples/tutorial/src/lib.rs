//! The ships of `docs/replicated-state.md`: the layout file `wire/ships.wire` compiled by
//! `build.rs` into this crate (the records `Ship`, `Helm`, the event `SeaEvent` and the acked
//! schema `Fleet` of `state Fleet`), and [`sea`], the game's own server over them. Every code
//! block of the page is a piece of this crate or of its TypeScript and C# clients
//! (`ts/client.ts`, `cs/Client.cs`), checked by `tests/page.rs`.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

// ANCHOR: include
include!(concat!(env!("OUT_DIR"), "/ships.rs"));
// ANCHOR_END: include

pub mod sea;
