// Tests of the game's groups as datagram v2 components (DG-6), which `ackwire gen --lang cs`
// writes into Arena.cs for examples/game/wire (`ArenaComponent`):
// - every group goes to its component and back: its type the group's index, its data the group's
//   full form as ArenaUpdate (kind 6) writes it;
// - a player's health is ranged (`u8 in 0..=100`, WIRE-29): 0 and 100 go through, 101 is refused
//   on the way out with the codec's EncodeError and on the way in at its byte, under
//   `player.health`.

using System;
using System.Globalization;
using Ackwire.Protocol;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;
using static Harness;

static class GameComponentTests
{
    /// A typed component as text, every field exactly, so that two compare as strings.
    static string Show(ArenaComponent c)
    {
        CultureInfo inv = CultureInfo.InvariantCulture;
        switch (c.Kind)
        {
            case ArenaComponentKind.Position:
                return "position " + c.Position.X.ToString("R", inv) + " " + c.Position.Y.ToString("R", inv);
            case ArenaComponentKind.Velocity:
                return "velocity " + c.Velocity.Vx.ToString("R", inv) + " " + c.Velocity.Vy.ToString("R", inv);
            case ArenaComponentKind.Player:
                return "player " + c.Player.Aim + " " + c.Player.Health + " " + c.Player.Weapon;
            case ArenaComponentKind.Projectile:
                return "projectile " + c.Projectile.Owner;
            default:
                return "pickup " + c.Pickup.Item;
        }
    }

    /// Each group to its component and back.
    public static void EveryGroupRoundTrips()
    {
        ArenaComponent[] values =
        {
            ArenaComponent.Of(new PositionFull { X = -12.5f, Y = 3.25f }),
            // Whole steps of 1/64 m a second, which the quantization keeps exactly.
            ArenaComponent.Of(new Velocity { Vx = 1.5, Vy = -0.015625 }),
            ArenaComponent.Of(new Player { Aim = 200, Health = 0, Weapon = 1 }),
            ArenaComponent.Of(new Player { Aim = 7, Health = 100, Weapon = 0 }),
            ArenaComponent.Of(new Projectile { Owner = 513 }),
            ArenaComponent.Of(new Pickup { Item = 1 }),
        };
        byte[] types = { 0, 1, 2, 2, 3, 4 };
        int[] lengths = { 8, 4, 3, 3, 2, 1 };
        for (int i = 0; i < values.Length; i++)
        {
            ComponentChange c = values[i].ToComponent();
            Equal(types[i], c.Type, Show(values[i]) + ": its group's index");
            Equal(lengths[i], c.Data.Length, Show(values[i]) + ": its full form's bytes");
            ArenaComponent back = ArenaComponent.FromComponent(c);
            True(back != null, Show(values[i]) + " read back");
            Equal(Show(values[i]), Show(back), "the component back");
        }
        Equal("01-02", BitConverter.ToString(ArenaComponent.Of(new Projectile { Owner = 513 }).ToComponent().Data), "the owner as kind 6 writes it, little endian");
        True(ArenaComponent.FromComponent(new ComponentChange { Type = 5, Data = new byte[] { 1 } }) == null, "a type past the groups reads as null");
        True(ArenaComponent.FromComponent(new ComponentChange { Type = 2, Data = null }) == null, "a removal reads as null");
    }

    /// WIRE-29: a health past 100 is refused both ways, located.
    public static void HealthOutOfRangeRefused()
    {
        try
        {
            ArenaComponent.Of(new Player { Aim = 1, Health = 101, Weapon = 0 }).ToComponent();
            throw new Failure("a health of 101 was written");
        }
        catch (EncodeError e)
        {
            Equal(ErrorKind.OverWidth, e.Kind, "the writer refuses health 101");
            Equal("health", e.Path, "naming the field");
        }
        byte[] data = ArenaComponent.Of(new Player { Aim = 1, Health = 100, Weapon = 0 }).ToComponent().Data;
        data[1] = 101;
        try
        {
            ArenaComponent.FromComponent(new ComponentChange { Type = 2, Data = data });
            throw new Failure("a health of 101 was read");
        }
        catch (DecodeError e)
        {
            Equal(ErrorKind.OverWidth, e.Kind, "the reader refuses health 101");
            Equal(1L, e.Offset, "at its byte in the component");
            Equal("player.health", e.Path, "under the group's name");
        }
    }
}
