/*
 * Colossal ping-pong in C11, on the same region layout as dev.colossal.ipc.PingPong, so that a
 * Java process and this program can play against each other.
 *
 *   gcc -O2 -std=c11 -o pingpong pingpong.c
 *   ./pingpong odd|even PATH ROUNDS
 *
 * Region file: 128-byte header (RegionHeader.java: magic, version, kind, size), then the payload,
 * whose first long is the counter. Prints the same summary line as `colossal pingpong`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HEADER_LENGTH 128
#define MAGIC 0x4E4745524C534C43LL /* "CLSLREGN" little-endian */
#define VERSION 2 /* RegionHeader.VERSION */
#define KIND_PING_PONG 2
#define PAYLOAD_SIZE 128
#define FILE_SIZE (HEADER_LENGTH + PAYLOAD_SIZE)

struct header {
    _Atomic int64_t magic;
    int32_t version;
    int32_t kind;
    int64_t size;
};

static void die(const char *what, const char *path) {
    fprintf(stderr, "pingpong: %s: %s (%s)\n", what, path, errno ? strerror(errno) : "bad region");
    exit(2);
}

static uint8_t *map_region(const char *path) {
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
    int created = fd >= 0;
    if (!created) {
        if (errno != EEXIST) die("cannot create", path);
        fd = open(path, O_RDWR);
        if (fd < 0) die("cannot open", path);
    } else if (ftruncate(fd, FILE_SIZE) != 0) {
        die("cannot size", path);
    }
    for (int i = 0; i < 5000; i++) { /* a creator in another process may still be writing */
        struct stat st;
        if (fstat(fd, &st) == 0 && st.st_size >= FILE_SIZE) break;
        usleep(1000);
    }
    uint8_t *base = mmap(NULL, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) die("cannot map", path);
    struct header *h = (struct header *) base;
    if (created) {
        h->version = VERSION;
        h->kind = KIND_PING_PONG;
        h->size = FILE_SIZE;
        atomic_store_explicit(&h->magic, MAGIC, memory_order_release);
    } else {
        for (int i = 0; i < 5000 && atomic_load_explicit(&h->magic, memory_order_acquire) == 0; i++) usleep(1000);
        errno = 0;
        if (atomic_load_explicit(&h->magic, memory_order_acquire) != MAGIC || h->version != VERSION
                || h->kind != KIND_PING_PONG || h->size != FILE_SIZE) {
            die("not a ping-pong region of version 2", path);
        }
    }
    return base + HEADER_LENGTH;
}

static inline int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void await_value(_Atomic int64_t *counter, int64_t value) {
    while (atomic_load_explicit(counter, memory_order_acquire) != value) {
        __builtin_ia32_pause();
    }
}

static int compare(const void *a, const void *b) {
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 4 || (strcmp(argv[1], "odd") != 0 && strcmp(argv[1], "even") != 0)) {
        fprintf(stderr, "usage: pingpong odd|even PATH ROUNDS\n");
        return 2;
    }
    int odd = strcmp(argv[1], "odd") == 0;
    long rounds = atol(argv[3]);
    if (rounds < 1) {
        fprintf(stderr, "pingpong: rounds=%s must be at least 1\n", argv[3]);
        return 2;
    }
    _Atomic int64_t *counter = (_Atomic int64_t *) map_region(argv[2]);
    int64_t *rtt = malloc(sizeof(int64_t) * (size_t) rounds);
    long samples = 0;
    if (odd) {
        atomic_store_explicit(counter, 0, memory_order_seq_cst);
        for (int64_t i = 0; i < rounds; i++) {
            int64_t start = now_ns();
            int64_t expected = 2 * i;
            if (!atomic_compare_exchange_strong(counter, &expected, 2 * i + 1)) {
                fprintf(stderr, "pingpong: counter=%lld where %lld was expected\n", (long long) expected, (long long) (2 * i));
                return 1;
            }
            await_value(counter, 2 * i + 2);
            rtt[samples++] = now_ns() - start;
        }
    } else {
        await_value(counter, 1);
        for (int64_t i = 0; i < rounds; i++) {
            int64_t start = now_ns();
            int64_t expected = 2 * i + 1;
            if (!atomic_compare_exchange_strong(counter, &expected, 2 * i + 2)) {
                fprintf(stderr, "pingpong: counter=%lld where %lld was expected\n", (long long) expected, (long long) (2 * i + 1));
                return 1;
            }
            if (i + 1 < rounds) {
                await_value(counter, 2 * i + 3);
                rtt[samples++] = now_ns() - start;
            }
        }
    }
    /* Same warm-up rule as the Java side: the first tenth (at most 100,000) is not reported. */
    long skip = samples / 10 < 100000 ? samples / 10 : 100000;
    long n = samples - skip;
    if (n <= 0) {
        printf("role=%s rounds=%ld (too few to report)\n", argv[1], rounds);
        return 0;
    }
    qsort(rtt + skip, (size_t) n, sizeof(int64_t), compare);
    double sum = 0;
    for (long i = skip; i < samples; i++) sum += (double) rtt[i];
    int64_t *s = rtt + skip;
#define PCT(p) s[(long) ((double) (n - 1) * (p))]
    printf("role=%s rounds=%ld samples=%ld mean=%.1fns p50=%lldns p90=%lldns p99=%lldns p99.9=%lldns max=%lldns\n",
           argv[1], rounds, n, sum / (double) n, (long long) PCT(0.50), (long long) PCT(0.90),
           (long long) PCT(0.99), (long long) PCT(0.999), (long long) s[n - 1]);
    free(rtt);
    return 0;
}
