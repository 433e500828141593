#include "config.h"
#include <snodo/snodo.h>
int main (void) { return 0; }
