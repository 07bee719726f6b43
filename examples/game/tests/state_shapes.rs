//! The binding of tests/shapes/shapes.wire (a quantized and a ranged field inside an optional
//! group), compiled by the build script: it builds (a quantized field of an optional group once
//! did not), and a unit's record survives the decoder's slot, which keeps the group's quantized
//! value as its integer.

#[allow(dead_code, unused_variables, clippy::all)]
mod shapes {
    include!(concat!(env!("OUT_DIR"), "/shapes.rs"));
}

use ackwire_codec::acked::DecoderSlot;
use ackwire_codec::rt::{BitSet, Fnv1a32};
use shapes::{Shield, Unit, UnitFlags, UnitSlot, Units};

fn unit(power: f64, level: u8) -> Unit {
    Unit {
        flags: UnitFlags::from_bits(0).with(UnitFlags::SHIELDED),
        x: -320,
        hp: 100,
        shield: Some(Shield { power, level }),
    }
}

#[test]
fn a_quantized_field_of_an_optional_group_survives_the_slot() {
    // 12.5 is 100 steps of 1/8: the record the slot gives back is the one it was given.
    let u = unit(12.5, 5);
    let slot = <UnitSlot as DecoderSlot<Units>>::of(Some(&u));
    assert_eq!(DecoderSlot::<Units>::record(&slot), Some(u));
    // The check hashes the integer: a value that quantizes to the same step hashes the same,
    // another step differently.
    let h = |u: &Unit| {
        <UnitSlot as DecoderSlot<Units>>::of(Some(u))
            .hash(&Units, Fnv1a32::new(), 7)
            .finish()
    };
    assert_eq!(h(&u), h(&unit(12.52, 5)));
    assert_ne!(h(&u), h(&unit(12.625, 5)));
    assert_ne!(h(&u), h(&unit(12.5, 4)));
    let none = <UnitSlot as DecoderSlot<Units>>::of(None);
    assert_eq!(DecoderSlot::<Units>::record(&none), None);
}
