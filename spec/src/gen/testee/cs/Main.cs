//
// Runs the testee of Protocol.cs (Testee.cs) with no session half: what ./testee builds.

static class Program
{
    static int Main()
    {
        return Ackwire.Protocol.ProtocolTestee.Serve(null);
    }
}
