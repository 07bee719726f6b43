//
// Runs the testee of protocol.hpp (testee.hpp) with no session half: what ./testee builds.

#include "testee.hpp"

int main() { return ackwire::testee::serve(); }
