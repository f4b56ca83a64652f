/* LiDAR serial protocols, pure functions (no I/O): streaming parsers that
 * resynchronise after garbage and assemble whole revolutions, and encoders
 * (for the simulated devices in the tests).
 *
 * TurtleBot3 LDS-01 (HLS HLDS, 230400 baud): 60 packets of 42 bytes per
 * revolution, packet k = 0xFA, 0xA0 + k, motor speed (u16 LE, rpm x 10),
 * six readings of 6 bytes (intensity u16 LE, range u16 LE in mm, 2 reserved
 * bytes), checksum (u16 LE). Reading r of packet k is at 6k + r degrees,
 * clockwise; the scan is turned counter-clockwise (REP-103), so beam i of
 * the scan is 359 - (6k + r). ROBOTIS's own driver does not check the
 * checksum; the packet follows the Neato XV-11 layout, whose checksum
 * (20 little-endian words w: c = (c << 1) + w; then (c & 0x7FFF) +
 * (c >> 15), & 0x7FFF) we apply. Mode AUTO checks it but, should a sensor
 * fail it on every packet whose structure is otherwise perfect (60 in a
 * row), stops checking and says so, rather than going blind. */
#ifndef TYCHO_LIDARPROTO_H
#define TYCHO_LIDARPROTO_H

#include "tycho/common.h"

#define TYCHO_LDS01_PACKET 42
#define TYCHO_LDS01_PACKETS 60
#define TYCHO_LDS01_BEAMS 360

typedef enum { TYCHO_CHECKSUM_CHECK = 0, TYCHO_CHECKSUM_IGNORE, TYCHO_CHECKSUM_AUTO } tycho_checksum_mode;

typedef struct {
    float ranges[TYCHO_LDS01_BEAMS];      /* m; 0 = no return (the sensor's 0 mm) */
    float intensities[TYCHO_LDS01_BEAMS];
    double rpm;                           /* mean motor speed over the revolution */
    int packets;                          /* of 60 that arrived */
} tycho_lds01_scan;

typedef struct {
    uint8_t pkt[TYCHO_LDS01_PACKET];
    int n;                                /* bytes of the packet so far */
    int last_index;                       /* packet index seen last, -1 at start */
    tycho_lds01_scan cur;
    double rpm_sum;
    tycho_checksum_mode mode;
    int bad_in_a_row;
    bool checksum_given_up;
    unsigned long packets, bad_checksum, skipped, revolutions;
} tycho_lds01_parser;

void tycho_lds01_init(tycho_lds01_parser *p, tycho_checksum_mode mode);
uint16_t tycho_lds01_checksum(const uint8_t pkt[TYCHO_LDS01_PACKET]);
/* Consumes up to len bytes; when a revolution is complete (the packet of
 * index 59 arrived, or the index wrapped round), copies it to *out, sets
 * *got and stops right after that packet (call again with the rest). */
size_t tycho_lds01_feed(tycho_lds01_parser *p, const uint8_t *data, size_t len, tycho_lds01_scan *out, bool *got);
/* One revolution's 2520 bytes from 360 ranges (m, scan order, CCW) and rpm. */
void tycho_lds01_encode(const float ranges[TYCHO_LDS01_BEAMS], double rpm, uint8_t out[TYCHO_LDS01_PACKETS * TYCHO_LDS01_PACKET]);

#endif
