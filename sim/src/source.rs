//! The byte-driven decision source of the fuzz harnesses.

/// A fuzz input read a byte at a time, as the stream harnesses (acked, datagram, baseline,
/// delta) draw their choices from it: zeros once it is used up, so every input, however short,
/// is a whole run and the fuzzer's mutations stay local.
#[derive(Debug, Clone)]
pub struct ByteSource<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> ByteSource<'a> {
    /// A source at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        ByteSource { data, pos: 0 }
    }

    /// The next byte; 0 past the end.
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos = self.pos.saturating_add(1);
        b
    }

    /// The next two bytes, little endian.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    /// The next four bytes, little endian.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    /// The next eight bytes, big endian (the first byte is the most significant).
    pub fn u64_be(&mut self) -> u64 {
        (0..8).fold(0, |v, _| (v << 8) | u64::from(self.byte()))
    }

    /// The next `n` bytes, fewer when the input ends first (none past its end).
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let start = self.pos.min(self.data.len());
        let end = start.saturating_add(n).min(self.data.len());
        self.pos = self.pos.saturating_add(n);
        &self.data[start..end]
    }

    /// Whether every byte of the input has been read.
    pub fn done(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// An index below `len` chosen by the next byte; `None` (reading nothing) when `len` is 0.
    pub fn pick(&mut self, len: usize) -> Option<usize> {
        (len > 0).then(|| usize::from(self.byte()) % len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_in_order_then_zeros() {
        let mut s = ByteSource::new(&[1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(s.byte(), 1);
        assert_eq!(s.u16(), 0x0302);
        assert_eq!(s.take(2), &[4, 5]);
        assert!(!s.done());
        assert_eq!(s.u32(), 0x0000_0706);
        assert!(s.done());
        assert_eq!(s.take(3), &[] as &[u8]);
        assert_eq!(s.byte(), 0);
        assert_eq!(s.pick(0), None);
        assert_eq!(s.pick(3), Some(0));
    }

    #[test]
    fn u64_be_is_big_endian_and_take_stops_at_the_end() {
        let mut s = ByteSource::new(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(s.u64_be(), 0x0102_0304_0506_0708);
        assert_eq!(s.take(5), &[9]);
        assert!(s.done());
        assert_eq!(s.u64_be(), 0);
    }
}
