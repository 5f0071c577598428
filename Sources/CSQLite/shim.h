#ifndef PINVAULT_CSQLITE_SHIM_H
#define PINVAULT_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
