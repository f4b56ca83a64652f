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

typedef enum {
    TYCHO_CHECKSUM_CHECK = 0,
    TYCHO_CHECKSUM_IGNORE,
    TYCHO_CHECKSUM_AUTO
} tycho_checksum_mode;

typedef struct {
    float ranges[TYCHO_LDS01_BEAMS]; /* m; 0 = no return (the sensor's 0 mm) */
    float intensities[TYCHO_LDS01_BEAMS];
    double rpm;  /* mean motor speed over the revolution */
    int packets; /* of 60 that arrived */
} tycho_lds01_scan;

typedef struct {
    uint8_t pkt[TYCHO_LDS01_PACKET];
    int n;          /* bytes of the packet so far */
    int last_index; /* packet index seen last, -1 at start */
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
size_t tycho_lds01_feed(tycho_lds01_parser *p, const uint8_t *data, size_t len,
                        tycho_lds01_scan *out, bool *got);
/* One revolution's 2520 bytes from 360 ranges (m, scan order, CCW) and rpm. */
void tycho_lds01_encode(const float ranges[TYCHO_LDS01_BEAMS], double rpm,
                        uint8_t out[TYCHO_LDS01_PACKETS * TYCHO_LDS01_PACKET]);

/* --- a revolution as 360 one-degree bins, counter-clockwise (REP-103) --- */
typedef struct {
    float ranges[360]; /* m, 0 = no return in that degree */
    int points;        /* measurements that went into it */
    double speed;      /* LDS-02: deg/s; RPLIDAR: 0 */
} tycho_scan360;

/* LDS-02 (LD08-style, 115200 baud): 47-byte frames 0x54 0x2C, speed u16
 * (deg/s), start angle u16 (0.01 deg), 12 x (distance u16 mm, intensity u8),
 * end angle u16, timestamp u16 (ms), CRC-8 (poly 0x4D, init 0) over the
 * first 46 bytes. Angles grow clockwise; the 12 points are spread evenly
 * from start to end (across 360 when it wraps). A revolution is complete
 * when a frame's start angle is below the previous one's. */
#define TYCHO_LDS02_FRAME 47
typedef struct {
    uint8_t f[TYCHO_LDS02_FRAME];
    int n;
    int last_start; /* 0.01 deg, -1 at start */
    tycho_scan360 cur;
    unsigned long frames, bad_crc, skipped, revolutions;
} tycho_lds02_parser;
uint8_t tycho_crc8_4d(const uint8_t *data, size_t n);
void tycho_lds02_init(tycho_lds02_parser *p);
size_t tycho_lds02_feed(tycho_lds02_parser *p, const uint8_t *data, size_t len, tycho_scan360 *out,
                        bool *got);
/* One frame of 12 points (mm) from start to end (0.01 deg). */
void tycho_lds02_encode(int start_cdeg, int end_cdeg, int speed_dps, const uint16_t mm[12],
                        uint16_t stamp_ms, uint8_t out[TYCHO_LDS02_FRAME]);

/* RPLIDAR A1 (115200 baud): requests 0xA5 CMD (SCAN 0x20, STOP 0x25, RESET
 * 0x40, GET_HEALTH 0x52); the scan's response descriptor A5 5A 05 00 00 40
 * 81, then 5-byte nodes: quality << 2 | !S << 1 | S (S: first of a new
 * revolution), angle_q6 << 1 | 1 (u16 LE, 1/64 deg, clockwise), distance_q2
 * (u16 LE, 1/4 mm, 0 = none). A node whose S and !S agree or whose check
 * bit is 0 is out of step: the parser slides one byte. */
#define TYCHO_RPLIDAR_NODE 5
typedef struct {
    uint8_t b[TYCHO_RPLIDAR_NODE];
    int n;
    int descriptor; /* bytes of the descriptor matched so far (7 = seen) */
    bool started;   /* a node with S seen */
    tycho_scan360 cur;
    unsigned long nodes, bad_nodes, revolutions;
} tycho_rplidar_parser;
void tycho_rplidar_init(tycho_rplidar_parser *p);
size_t tycho_rplidar_feed(tycho_rplidar_parser *p, const uint8_t *data, size_t len,
                          tycho_scan360 *out, bool *got);
void tycho_rplidar_encode_node(bool start, int quality, double angle_deg, double mm,
                               uint8_t out[TYCHO_RPLIDAR_NODE]);
extern const uint8_t TYCHO_RPLIDAR_SCAN_DESCRIPTOR[7];

#endif
