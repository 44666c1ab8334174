/* placeholder */
#include "tools/ops/htsim.h"
int htsim_export_main(int argc, char **argv) { (void)argc; (void)argv; return 2; }
