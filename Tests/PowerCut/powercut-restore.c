/*
 * powercut-restore DIRECTORY SHADOW — after the process that ran with powercut.so was
 * SIGKILLed, makes DIRECTORY what a power cut at that moment would have left: exactly
 * the names in SHADOW/names, each with the bytes of its image (mode 0600); every other
 * file in DIRECTORY is removed. See README.md.
 *
 * Prints one line per file: NAME BYTES-AT-THE-CUT BYTES-RESTORED same|differs
 * ("-" for a file absent at the cut or after the restore).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_NAMES = 256 };

static void fail(const char *what, const char *name) {
    fprintf(stderr, "powercut-restore: %s %s: %s\n", what, name, strerror(errno));
    exit(1);
}

/* Reads the whole file at dir/name into a new buffer; *size gets its length, or -1 when absent. */
static unsigned char *slurp(int dir, const char *name, long *size) {
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT) fail("open", name);
        *size = -1;
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) fail("fstat", name);
    unsigned char *bytes = malloc((size_t)st.st_size + 1);
    if (!bytes) fail("malloc for", name);
    long done = 0;
    while (done < st.st_size) {
        ssize_t n = read(fd, bytes + done, (size_t)(st.st_size - done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail("read", name);
        done += n;
    }
    close(fd);
    *size = done;
    return bytes;
}

static void report(const char *name, long before, long after, int same) {
    char b[32] = "-", a[32] = "-";
    if (before >= 0) snprintf(b, sizeof b, "%ld", before);
    if (after >= 0) snprintf(a, sizeof a, "%ld", after);
    printf("%s %s %s %s\n", name, b, a, same ? "same" : "differs");
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: powercut-restore DIRECTORY SHADOW\n");
        return 64;
    }
    int dir = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) fail("open", argv[1]);
    int shadow = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (shadow < 0) fail("open", argv[2]);

    long names_size;
    char *names = (char *)slurp(shadow, "names", &names_size);
    if (!names) {
        errno = ENOENT;
        fail("no durable names: was powercut.so loaded?", argv[2]);
    }
    names[names_size] = 0;
    char *images[MAX_NAMES], *listed[MAX_NAMES];
    int count = 0;
    for (char *line = strtok(names, "\n"); line; line = strtok(NULL, "\n")) {
        char *space = strchr(line, ' ');
        if (!space || count == MAX_NAMES) {
            errno = EINVAL;
            fail("malformed names file in", argv[2]);
        }
        *space = 0;
        images[count] = line;
        listed[count] = space + 1;
        count++;
    }

    /* Names the cut undoes: created (or renamed here) since the last directory sync. */
    DIR *listing = fdopendir(dup(dir));
    if (!listing) fail("opendir", argv[1]);
    struct dirent *entry;
    while ((entry = readdir(listing))) {
        if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, "..")) continue;
        int keep = 0;
        for (int i = 0; i < count; i++) keep |= !strcmp(listed[i], entry->d_name);
        if (keep) continue;
        struct stat st;
        if (fstatat(dir, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) fail("stat", entry->d_name);
        if (unlinkat(dir, entry->d_name, 0) != 0) fail("unlink", entry->d_name);
        report(entry->d_name, (long)st.st_size, -1, 0);
    }
    closedir(listing);

    /* Each durable name with its durable bytes. */
    for (int i = 0; i < count; i++) {
        long before, after;
        unsigned char *now = slurp(dir, listed[i], &before);
        unsigned char *image = slurp(shadow, images[i], &after);
        if (!image) fail("missing", images[i]);
        int fd = openat(dir, ".powercut-restoring", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 || fchmod(fd, 0600) != 0) fail("create", ".powercut-restoring");
        for (long done = 0; done < after;) {
            ssize_t n = write(fd, image + done, (size_t)(after - done));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) fail("write", listed[i]);
            done += n;
        }
        if (close(fd) != 0) fail("close", listed[i]);
        if (renameat(dir, ".powercut-restoring", dir, listed[i]) != 0) fail("rename onto", listed[i]);
        report(listed[i], before, after, before == after && (after == 0 || !memcmp(now, image, (size_t)after)));
        free(now);
        free(image);
    }
    return 0;
}
