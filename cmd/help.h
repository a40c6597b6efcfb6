#ifndef WLR_HELP_H
#define WLR_HELP_H

#include <stdio.h>

void print_help(FILE *out);
void print_version(FILE *out);

#endif
