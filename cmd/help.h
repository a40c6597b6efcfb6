#ifndef WL_RECORD_HELP_H
#define WL_RECORD_HELP_H

#include <stdio.h>

void print_help(FILE *out);
void print_version(FILE *out);

#endif
