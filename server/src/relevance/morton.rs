//! Z-order (Morton) curve encoding (SRV-5): integer coordinates interleaved into one
//! locality-preserving key, so cells near each other in space tend to be near each other in key
//! order.
//!
//! The x coordinate takes the lowest bit of each group (bit 0, then 2, 4, ... in 2-D; bit 0,
//! then 3, 6, ... in 3-D), then y, then z.

/// Spreads the 32 bits of `v` to the even bit positions of a `u64`.
const fn spread_2(v: u32) -> u64 {
    let mut x = v as u64;
    x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x << 2)) & 0x3333_3333_3333_3333;
    x = (x | (x << 1)) & 0x5555_5555_5555_5555;
    x
}

/// Gathers the even bit positions of `x` back into 32 bits.
const fn compact_2(x: u64) -> u32 {
    let mut x = x & 0x5555_5555_5555_5555;
    x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
    x = (x | (x >> 2)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x >> 16)) & 0x0000_0000_FFFF_FFFF;
    x as u32
}

/// The mask of the 21 low bits each axis keeps in 3-D.
const AXIS_3D: u32 = (1 << 21) - 1;

/// Spreads the low 21 bits of `v` to every third bit position of a `u64`.
const fn spread_3(v: u32) -> u64 {
    let mut x = (v & AXIS_3D) as u64;
    x = (x | (x << 32)) & 0x001F_0000_0000_FFFF;
    x = (x | (x << 16)) & 0x001F_0000_FF00_00FF;
    x = (x | (x << 8)) & 0x100F_00F0_0F00_F00F;
    x = (x | (x << 4)) & 0x10C3_0C30_C30C_30C3;
    x = (x | (x << 2)) & 0x1249_2492_4924_9249;
    x
}

/// Gathers every third bit position of `x` back into 21 bits.
const fn compact_3(x: u64) -> u32 {
    let mut x = x & 0x1249_2492_4924_9249;
    x = (x | (x >> 2)) & 0x10C3_0C30_C30C_30C3;
    x = (x | (x >> 4)) & 0x100F_00F0_0F00_F00F;
    x = (x | (x >> 8)) & 0x001F_0000_FF00_00FF;
    x = (x | (x >> 16)) & 0x001F_0000_0000_FFFF;
    x = (x | (x >> 32)) & 0x0000_0000_001F_FFFF;
    x as u32
}

/// The Morton key of `(x, y)`, full 32-bit coordinates: x in the even bits, y in the odd.
#[must_use]
pub const fn encode_2d(x: u32, y: u32) -> u64 {
    spread_2(x) | (spread_2(y) << 1)
}

/// The `(x, y)` a key made by [`encode_2d`] came from.
#[must_use]
pub const fn decode_2d(key: u64) -> (u32, u32) {
    (compact_2(key), compact_2(key >> 1))
}

/// The Morton key of `(x, y, z)`.
///
/// SRV-5: each coordinate gives its low 21 bits, the three sharing 63 bits of the key. Higher bits
/// of a coordinate are ignored, and bit 63 of the key is always 0.
#[must_use]
pub const fn encode_3d(x: u32, y: u32, z: u32) -> u64 {
    spread_3(x) | (spread_3(y) << 1) | (spread_3(z) << 2)
}

/// The `(x, y, z)` a key made by [`encode_3d`] came from, each below `2^21`. Bit 63 of the key
/// is ignored.
#[must_use]
pub const fn decode_3d(key: u64) -> (u32, u32, u32) {
    (compact_3(key), compact_3(key >> 1), compact_3(key >> 2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn encode_2d_interleaves_x_in_even_and_y_in_odd_bits() {
        assert_eq!(encode_2d(0, 0), 0);
        assert_eq!(encode_2d(1, 0), 0b01);
        assert_eq!(encode_2d(0, 1), 0b10);
        // x = 0b101, y = 0b011 -> y2 x2 y1 x1 y0 x0 = 0 1 1 0 1 1
        assert_eq!(encode_2d(5, 3), 0b01_1011);
        assert_eq!(encode_2d(u32::MAX, 0), 0x5555_5555_5555_5555);
        assert_eq!(encode_2d(0x1234_5678, 0x9ABC_DEF0), 0x838C_8FB0_B3BC_BF40);
    }

    #[test]
    fn encode_2d_uses_full_32_bit_coordinates() {
        // SRV-5.
        assert_eq!(encode_2d(u32::MAX, u32::MAX), u64::MAX);
        assert_eq!(decode_2d(u64::MAX), (u32::MAX, u32::MAX));
    }

    #[test]
    fn encode_3d_uses_21_bits_per_axis() {
        // SRV-5.
        assert_eq!(encode_3d(1, 2, 4), 0x111);
        let max = (1 << 21) - 1;
        assert_eq!(encode_3d(max, max, max), 0x7FFF_FFFF_FFFF_FFFF);
        // Bits above the 21st are ignored.
        assert_eq!(encode_3d(1 << 21, 1 << 22, u32::MAX << 21), 0);
        assert_eq!(encode_3d(u32::MAX, 0, 0), encode_3d(max, 0, 0));
        assert_eq!(decode_3d(u64::MAX), (max, max, max));
    }

    proptest! {
        #[test]
        fn morton_2d_round_trips(x: u32, y: u32) {
            prop_assert_eq!(decode_2d(encode_2d(x, y)), (x, y));
        }

        #[test]
        fn morton_3d_round_trips_the_low_21_bits(x: u32, y: u32, z: u32) {
            let m = (1 << 21) - 1;
            prop_assert_eq!(decode_3d(encode_3d(x, y, z)), (x & m, y & m, z & m));
        }

        #[test]
        fn morton_2d_decode_then_encode_is_identity(key: u64) {
            let (x, y) = decode_2d(key);
            prop_assert_eq!(encode_2d(x, y), key);
        }
    }
}
