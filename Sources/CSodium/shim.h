#ifndef PINVAULT_CSODIUM_SHIM_H
#define PINVAULT_CSODIUM_SHIM_H
#include <sodium.h>
#endif
