// CPP_ENGINE_HOT marks the functions every packet goes through. They are forced inline
// so that all eight design x strategy instantiations get the same code shape: left to
// its heuristics, GCC 12 inlined the packet source's fill and ByteWriter::put32 into some
// instantiations and not others (its unit-growth limits), which alone made cpp+pool
// 20 to 50 ns per packet slower than cpp+mix on case A.
#pragma once

#define CPP_ENGINE_HOT [[gnu::always_inline]]
