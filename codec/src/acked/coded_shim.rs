//! TEMPORARY: API.md's `ackwire_rt::coded` basis types until coded-rt's commit is merged.
#![allow(missing_docs)]
pub trait CodedBasis<R> {
    fn base(&self, eid: u16) -> Option<R>;
    fn older(&self, eid: u16) -> Option<R>;
}
pub struct NoBasis;
impl<R> CodedBasis<R> for NoBasis {
    fn base(&self, _: u16) -> Option<R> {
        None
    }
    fn older(&self, _: u16) -> Option<R> {
        None
    }
}
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodedBasisTicks {
    pub tick: u32,
    pub base_tick: u32,
    pub keyframe: bool,
    pub older: u8,
}
