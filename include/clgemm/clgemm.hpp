// The whole public C++ API of libclgemm in one include.
#pragma once

#include "clgemm/device.hpp"
#include "clgemm/errors.hpp"
#include "clgemm/gemm.hpp"
#include "clgemm/kernels.hpp"
#include "clgemm/measure.hpp"
#include "clgemm/precision.hpp"
#include "clgemm/reference.hpp"
#include "clgemm/tuning.hpp"
#include "clgemm/version.hpp"
#include "clgemm/warm.hpp"
