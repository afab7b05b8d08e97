#pragma once
// The one way app/ code includes LibTorch: Qt's `slots` macro breaks ATen/core/ivalue_inl.h.
#pragma push_macro("slots")
#undef slots
#include <torch/torch.h>
#pragma pop_macro("slots")
