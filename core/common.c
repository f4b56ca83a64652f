#include "tycho/common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

tycho_status tycho_fail(tycho_err *err, tycho_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void tycho_err_clear(tycho_err *err)
{
    if (err) {
        err->code = TYCHO_OK;
        err->msg[0] = '\0';
    }
}

const char *tycho_status_name(tycho_status code)
{
    switch (code) {
    case TYCHO_OK:
        return "ok";
    case TYCHO_ENOMEM:
        return "out of memory";
    case TYCHO_EINVAL:
        return "invalid argument";
    case TYCHO_EIO:
        return "i/o error";
    case TYCHO_EPARSE:
        return "parse error";
    case TYCHO_ENOPATH:
        return "no path";
    case TYCHO_ERANGE:
        return "out of range";
    }
    return "unknown error";
}

double tycho_wrap_pi(double a)
{
    /* luai_nummod: fmod, then the result takes the divisor's (positive) sign */
    const double two_pi = 2 * M_PI;
    double m = fmod(a + M_PI, two_pi);
    if (m < 0) m += two_pi;
    return m - M_PI;
}
