/* html_cmd.h — `shb report --html FILE REPORT.json...`: the HTML page
 * (html.h) from JSON reports. */
#ifndef SHB_HTML_CMD_H
#define SHB_HTML_CMD_H

#include <stdio.h>

/* argv[0] is "report". Help goes to out, a one-line error ("shb: report:
 * ...") to err. Returns the exit status: 0; 2 for bad input (a flag, a
 * file, a report that is not one, a page that cannot be created); 1 when
 * the page could not be written. */
int html_cmd_main(int argc, char **argv, FILE *out, FILE *err);

#endif
