/*
 * powercut.so — an LD_PRELOAD shim that keeps, beside one directory, the image of it
 * that a power cut would leave: each file as of its last fsync/fdatasync, the
 * directory's names as of its last fsync/fdatasync of the directory. After the process
 * is SIGKILLed, powercut-restore puts that image in place of the directory. See README.md.
 *
 * Environment:
 *   POWERCUT_DIRECTORY  the directory watched (the daemon's state directory)
 *   POWERCUT_SHADOW     an existing private directory for the images; emptied at start
 *   POWERCUT_SKIP       "file-sync" or "directory-sync": the bookkeeping ignores those
 *                       syncs (the real ones still run), so that the harness can prove
 *                       it finds the loss such a daemon would suffer
 *
 * Crash points (CrashSweepTests), optional:
 *   POWERCUT_ARM        a path: from the first watched call after it exists, each write
 *                       (write, pwrite, their vector forms, ftruncate, fallocate), each
 *                       sync (fsync, fdatasync, of a file or of the directory) and each
 *                       return of crypto_pwhash (a PIN checked) is an event, numbered
 *                       from 1 and logged to POWERCUT_EVENTS as "N kind name"
 *   POWERCUT_AT         the event to act at, with
 *   POWERCUT_ACTION     kill: SIGKILL before the call (for a check: once it returned);
 *                       kill-after: SIGKILL once the call returned; enospc, eio: the
 *                       call fails with that errno without being made (once; a check
 *                       takes no fault)
 *
 * Shadow layout: image-N (the durable bytes of file N), names (one "image-N NAME" line
 * per durable directory entry, replaced atomically at each directory sync), counters.
 *
 * Files are told apart by device and inode. Every inode the shim has met stays open
 * (a read descriptor it keeps), so no inode number is reused while the process lives.
 * Writes are noted as a dirty range per file; a sync copies that range from the file
 * to its image. Writes through a shared writable mapping (SQLite's -shm) bypass the
 * shim, so a mapped file's sync copies it whole. Internal I/O goes through raw system
 * calls, never through the functions this file replaces.
 */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE  /* its inline open() would clash with the one defined here */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

enum { MAX_FILES = 256, MAX_CACHED_FDS = 4096, COPY_CHUNK = 65536 };

struct file {
    dev_t dev;
    ino_t ino;
    int reader;           /* O_RDONLY, kept open: reads the bytes and pins the inode */
    int image;            /* image-N in the shadow; -1 until it exists */
    off_t dirty_from;     /* bytes written since the last sync: [dirty_from, dirty_to) */
    off_t dirty_to;
    off_t shrunk_to;      /* the smallest size a truncation left since the last sync */
    int whole;            /* the next sync copies the whole file (new, or mapped) */
};

struct fd_class {
    dev_t dev;
    ino_t ino;
    int known;
    int file;             /* index into files, or -1: not in the watched directory */
};

static int enabled;
static int skip_file_syncs, skip_directory_syncs;
static char watched[PATH_MAX];
static int shadow_fd = -1;
static int counters_fd = -1;
static struct file files[MAX_FILES];
static int file_count;
static struct fd_class fd_classes[MAX_CACHED_FDS];
static unsigned long long count_writes, count_file_syncs, count_directory_syncs;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char copy_buffer[COPY_CHUNK];

static void die(const char *what) {
    char line[512];
    int n = snprintf(line, sizeof line, "powercut: %s (errno %d)\n", what, errno);
    syscall(SYS_write, 2, line, (size_t)n);
    abort();
}

/* ---- raw system calls ------------------------------------------------------------ */

static int sys_openat(int dir, const char *path, int flags, mode_t mode) {
    return (int)syscall(SYS_openat, dir, path, flags, mode);
}
static int sys_fstat(int fd, struct stat *st) { return (int)syscall(SYS_fstat, fd, st); }
static ssize_t sys_pread(int fd, void *b, size_t n, off_t o) { return syscall(SYS_pread64, fd, b, n, o); }
static ssize_t sys_pwrite(int fd, const void *b, size_t n, off_t o) { return syscall(SYS_pwrite64, fd, b, n, o); }
static int sys_ftruncate(int fd, off_t n) { return (int)syscall(SYS_ftruncate, fd, n); }
static int sys_close(int fd) { return (int)syscall(SYS_close, fd); }

/* ---- images ---------------------------------------------------------------------- */

static off_t size_of(int fd) {
    struct stat st;
    if (sys_fstat(fd, &st) != 0) die("fstat");
    return st.st_size;
}

static void copy_range(struct file *f, off_t from, off_t to) {
    while (from < to) {
        size_t want = (size_t)(to - from < COPY_CHUNK ? to - from : COPY_CHUNK);
        ssize_t got = sys_pread(f->reader, copy_buffer, want, from);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) die("pread from a watched file");
        if (got == 0) break;
        for (ssize_t put = 0; put < got;) {
            ssize_t n = sys_pwrite(f->image, copy_buffer + put, (size_t)(got - put), from + put);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) die("pwrite to an image");
            put += n;
        }
        from += got;
    }
}

static void open_image(int index) {
    char name[32];
    snprintf(name, sizeof name, "image-%d", index);
    files[index].image = sys_openat(shadow_fd, name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (files[index].image < 0) die("open an image");
}

static void reset_dirty(struct file *f) {
    f->dirty_from = LLONG_MAX;
    f->dirty_to = 0;
    f->shrunk_to = LLONG_MAX;
    f->whole = 0;
}

/* The file's bytes now become its image (called for a sync that returned 0). */
static void make_durable(int index) {
    struct file *f = &files[index];
    if (f->image < 0) {
        open_image(index);
        f->whole = 1;
    }
    off_t size = size_of(f->reader);
    if (f->whole) {
        if (sys_ftruncate(f->image, size) != 0) die("ftruncate an image");
        copy_range(f, 0, size);
    } else {
        if (f->shrunk_to < size_of(f->image) && sys_ftruncate(f->image, f->shrunk_to) != 0) die("ftruncate an image");
        if (sys_ftruncate(f->image, size) != 0) die("ftruncate an image");
        copy_range(f, f->dirty_from, f->dirty_to < size ? f->dirty_to : size);
    }
    reset_dirty(f);
}

/* ---- which files are watched ----------------------------------------------------- */

static int find_file(dev_t dev, ino_t ino) {
    for (int i = 0; i < file_count; i++)
        if (files[i].dev == dev && files[i].ino == ino) return i;
    return -1;
}

/* Adds a file, given a descriptor `reader` open for reading on it (kept). */
static int add_file(const struct stat *st, int reader) {
    if (file_count == MAX_FILES) die("too many files in the watched directory");
    int index = file_count++;
    files[index] = (struct file){ .dev = st->st_dev, .ino = st->st_ino, .reader = reader, .image = -1 };
    reset_dirty(&files[index]);
    files[index].whole = 1;
    return index;
}

/* True when `fd` names a file whose path (deleted or not) is directly in `watched`. */
static int is_in_watched(int fd) {
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = syscall(SYS_readlink, link, path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    char *deleted = strstr(path, " (deleted)");
    if (deleted && deleted[10] == 0) *deleted = 0;
    char *slash = strrchr(path, '/');
    if (!slash) return 0;
    *slash = 0;
    return strcmp(path, watched) == 0;
}

/* The watched file `fd` writes to, or -1. Called with the lock held. */
static int file_of(int fd) {
    struct stat st;
    if (sys_fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    struct fd_class *cached = fd >= 0 && fd < MAX_CACHED_FDS ? &fd_classes[fd] : NULL;
    if (cached && cached->known && cached->dev == st.st_dev && cached->ino == st.st_ino) return cached->file;
    int index = find_file(st.st_dev, st.st_ino);
    if (index < 0 && is_in_watched(fd)) {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        int reader = sys_openat(AT_FDCWD, link, O_RDONLY | O_CLOEXEC, 0);
        if (reader < 0) die("reopen a watched file for reading");
        index = add_file(&st, reader);
    }
    if (cached) *cached = (struct fd_class){ .dev = st.st_dev, .ino = st.st_ino, .known = 1, .file = index };
    return index;
}

static int is_watched_directory(int fd) {
    struct stat st, dir;
    return sys_fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && stat(watched, &dir) == 0
        && st.st_dev == dir.st_dev && st.st_ino == dir.st_ino;
}

/* ---- the durable names ----------------------------------------------------------- */

static void write_counters(void) {
    char text[256];
    int n = snprintf(text, sizeof text, "writes %llu\nfile-syncs %llu\ndirectory-syncs %llu\n",
                     count_writes, count_file_syncs, count_directory_syncs);
    if (sys_pwrite(counters_fd, text, (size_t)n, 0) != n || sys_ftruncate(counters_fd, n) != 0) die("write counters");
}

/* The names now in the watched directory become its durable names. With `snapshot`,
 * every file's bytes become durable too (the state found at start). */
static void make_names_durable(int snapshot) {
    static char text[MAX_FILES * (NAME_MAX + 24)];
    size_t used = 0;
    DIR *dir = opendir(watched);
    if (!dir) {
        if (errno != ENOENT) die("opendir the watched directory");
    } else {
        struct dirent *entry;
        while ((entry = readdir(dir))) {
            struct stat st;
            if (fstatat(dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) die("fstatat");
            if (S_ISDIR(st.st_mode)) continue;
            if (!S_ISREG(st.st_mode)) die("a watched entry is neither a file nor a directory");
            int index = find_file(st.st_dev, st.st_ino);
            if (index < 0) {
                int reader = sys_openat(dirfd(dir), entry->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);
                if (reader < 0) die("open a watched file for reading");
                index = add_file(&st, reader);
            }
            if (snapshot) {
                make_durable(index);
            } else if (files[index].image < 0) {
                open_image(index);  /* named, but none of its bytes synced yet */
            }
            int n = snprintf(text + used, sizeof text - used, "image-%d %s\n", index, entry->d_name);
            if (n < 0 || (size_t)n >= sizeof text - used) die("too many names");
            used += (size_t)n;
        }
        closedir(dir);
    }
    int fd = sys_openat(shadow_fd, "names.new", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || sys_pwrite(fd, text, used, 0) != (ssize_t)used) die("write names");
    sys_close(fd);
    if (syscall(SYS_renameat, shadow_fd, "names.new", shadow_fd, "names") != 0) die("rename names");
}

/* ---- bookkeeping for the calls below ---------------------------------------------- */

static void noted_write(int fd, off_t from, off_t length) {
    int saved = errno;
    pthread_mutex_lock(&lock);
    int index = file_of(fd);
    if (index >= 0 && length > 0) {
        struct file *f = &files[index];
        if (from < f->dirty_from) f->dirty_from = from;
        if (from + length > f->dirty_to) f->dirty_to = from + length;
        count_writes++;
    }
    pthread_mutex_unlock(&lock);
    errno = saved;
}

/* write(2) and writev(2) write at the offset they leave minus what they wrote. */
static void noted_sequential_write(int fd, ssize_t written) {
    if (written <= 0) return;
    int saved = errno;
    pthread_mutex_lock(&lock);
    int index = file_of(fd);
    off_t end = index >= 0 ? (off_t)syscall(SYS_lseek, fd, 0, SEEK_CUR) : -1;
    pthread_mutex_unlock(&lock);
    errno = saved;
    if (end >= 0) noted_write(fd, end - written, written);
}

static void noted_truncate(int fd, off_t length) {
    int saved = errno;
    pthread_mutex_lock(&lock);
    int index = file_of(fd);
    if (index >= 0 && length < files[index].shrunk_to) files[index].shrunk_to = length;
    pthread_mutex_unlock(&lock);
    errno = saved;
}

static void noted_map(int fd) {
    int saved = errno;
    pthread_mutex_lock(&lock);
    int index = file_of(fd);
    if (index >= 0) files[index].whole = 1;  /* stays so: mapped writes are never seen */
    pthread_mutex_unlock(&lock);
    errno = saved;
}

static void noted_sync(int fd) {
    int saved = errno;
    pthread_mutex_lock(&lock);
    if (is_watched_directory(fd)) {
        count_directory_syncs++;
        if (!skip_directory_syncs) make_names_durable(0);
        write_counters();
    } else {
        int index = file_of(fd);
        if (index >= 0) {
            count_file_syncs++;
            if (!skip_file_syncs) make_durable(index);
            write_counters();
        }
    }
    pthread_mutex_unlock(&lock);
    errno = saved;
}

/* ---- crash points ---------------------------------------------------------------- */

enum action { ACT_NONE, ACT_KILL, ACT_KILL_AFTER, ACT_FAIL };

static char arm_path[PATH_MAX];
static int points_enabled, armed, events_fd = -1;
static unsigned long long event_count, act_at;
static enum action act;
static int act_errno;

static void kill_now(void) {
    syscall(SYS_kill, getpid(), SIGKILL);
    for (;;) pause();
}

/* Numbers the call about to be made on `fd` (a watched file or, for a sync, the
 * watched directory) as the next event once armed; kills, or answers the errno to
 * fail it with (negative), when it is the event POWERCUT_AT names. Returns the
 * event's number, 0 when it is none. */
static long long event_before(int fd, const char *kind, int is_sync) {
    if (!points_enabled) return 0;
    int saved = errno;
    pthread_mutex_lock(&lock);
    char name[NAME_MAX + 1] = "-";
    int watched_call = 0;
    if (fd < 0) {
        watched_call = 1;  /* a PIN check, not a file */
    } else if (is_sync && is_watched_directory(fd)) {
        watched_call = 1;
        strcpy(name, ".");
    } else if (file_of(fd) >= 0) {
        watched_call = 1;
        char link[64], path[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = syscall(SYS_readlink, link, path, sizeof path - 1);
        if (n > 0) {
            path[n] = 0;
            const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
            size_t length = strnlen(base, NAME_MAX);
            memcpy(name, base, length);
            name[length] = 0;
            char *deleted = strstr(name, " (deleted)");
            if (deleted) *deleted = 0;
        }
    }
    long long result = 0;
    if (watched_call && !armed) armed = syscall(SYS_faccessat, AT_FDCWD, arm_path, F_OK, 0) == 0;
    if (watched_call && armed) {
        result = (long long)++event_count;
        char line[NAME_MAX + 64];
        int n = snprintf(line, sizeof line, "%llu %s %s\n", event_count, kind, name);
        if (syscall(SYS_write, events_fd, line, (size_t)n) != n) die("write events");
        if (event_count == act_at && act == ACT_KILL && fd >= 0) kill_now();
        if (event_count == act_at && act == ACT_FAIL && fd >= 0) result = -act_errno;
    }
    pthread_mutex_unlock(&lock);
    errno = saved;
    return result;
}

/* After the call numbered `event` returned: kills when POWERCUT_AT names it with
 * kill-after (or, for a check, with kill). */
static void event_after(long long event, int is_check) {
    if (event > 0 && (unsigned long long)event == act_at && (act == ACT_KILL_AFTER || (is_check && act == ACT_KILL))) kill_now();
}

static void start_points(void) {
    const char *arm = getenv("POWERCUT_ARM");
    if (!arm || !*arm) return;
    const char *events = getenv("POWERCUT_EVENTS");
    const char *at = getenv("POWERCUT_AT");
    const char *action = getenv("POWERCUT_ACTION");
    if (!events || strlen(arm) >= sizeof arm_path) die("POWERCUT_ARM needs POWERCUT_EVENTS");
    strcpy(arm_path, arm);
    events_fd = sys_openat(AT_FDCWD, events, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (events_fd < 0) die("open POWERCUT_EVENTS");
    act_at = at && *at ? strtoull(at, NULL, 10) : 0;
    act = ACT_NONE;
    if (act_at) {
        if (!action) die("POWERCUT_AT needs POWERCUT_ACTION");
        else if (strcmp(action, "kill") == 0) act = ACT_KILL;
        else if (strcmp(action, "kill-after") == 0) act = ACT_KILL_AFTER;
        else if (strcmp(action, "enospc") == 0) { act = ACT_FAIL; act_errno = ENOSPC; }
        else if (strcmp(action, "eio") == 0) { act = ACT_FAIL; act_errno = EIO; }
        else die("POWERCUT_ACTION is none of kill, kill-after, enospc, eio");
    }
    points_enabled = 1;
}

/* A call that may be an event: number it, act before it, make it (or fail it), act after. */
#define EVENT_CALL(type, fd, kind, is_sync, call) ({ \
    long long event_ = enabled ? event_before((fd), (kind), (is_sync)) : 0; \
    type result_; \
    if (event_ < 0) { errno = (int)-event_; result_ = -1; } \
    else { result_ = (call); int saved_ = errno; event_after(event_, 0); errno = saved_; } \
    result_; })

/* ---- start ----------------------------------------------------------------------- */

__attribute__((constructor)) static void start(void) {
    const char *directory = getenv("POWERCUT_DIRECTORY");
    const char *shadow = getenv("POWERCUT_SHADOW");
    if (!directory || !shadow) return;
    const char *skip = getenv("POWERCUT_SKIP");
    skip_file_syncs = skip && strcmp(skip, "file-sync") == 0;
    skip_directory_syncs = skip && strcmp(skip, "directory-sync") == 0;
    if (skip && *skip && !skip_file_syncs && !skip_directory_syncs) die("POWERCUT_SKIP is neither file-sync nor directory-sync");
    if (strlen(directory) >= sizeof watched || directory[0] != '/') die("POWERCUT_DIRECTORY must be an absolute path");
    strcpy(watched, directory);
    size_t length = strlen(watched);
    while (length > 1 && watched[length - 1] == '/') watched[--length] = 0;

    shadow_fd = sys_openat(AT_FDCWD, shadow, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (shadow_fd < 0) die("open POWERCUT_SHADOW");
    DIR *old = opendir(shadow);
    if (!old) die("opendir POWERCUT_SHADOW");
    struct dirent *entry;
    while ((entry = readdir(old)))
        if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..")) unlinkat(shadow_fd, entry->d_name, 0);
    closedir(old);
    counters_fd = sys_openat(shadow_fd, "counters", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (counters_fd < 0) die("open counters");

    make_names_durable(1);
    write_counters();
    start_points();
    enabled = 1;
}

/* ---- the replaced functions ------------------------------------------------------ */

#define REAL(name) ({ \
    static __typeof__(&name) real_##name; \
    if (!real_##name) real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name); \
    if (!real_##name) die("dlsym " #name); \
    real_##name; })

ssize_t write(int fd, const void *buffer, size_t count) {
    ssize_t n = EVENT_CALL(ssize_t, fd, "write", 0, REAL(write)(fd, buffer, count));
    if (enabled) noted_sequential_write(fd, n);
    return n;
}

ssize_t writev(int fd, const struct iovec *iov, int count) {
    ssize_t n = EVENT_CALL(ssize_t, fd, "write", 0, REAL(writev)(fd, iov, count));
    if (enabled) noted_sequential_write(fd, n);
    return n;
}

#define POSITIONAL_WRITE(name, type) \
    ssize_t name(int fd, const void *buffer, size_t count, type offset) { \
        ssize_t n = EVENT_CALL(ssize_t, fd, "write", 0, REAL(name)(fd, buffer, count, offset)); \
        if (enabled && n > 0) noted_write(fd, (off_t)offset, n); \
        return n; \
    }
POSITIONAL_WRITE(pwrite, off_t)
POSITIONAL_WRITE(pwrite64, off64_t)

#define POSITIONAL_WRITEV(name, type) \
    ssize_t name(int fd, const struct iovec *iov, int count, type offset) { \
        ssize_t n = EVENT_CALL(ssize_t, fd, "write", 0, REAL(name)(fd, iov, count, offset)); \
        if (enabled && n > 0) noted_write(fd, (off_t)offset, n); \
        return n; \
    }
POSITIONAL_WRITEV(pwritev, off_t)
POSITIONAL_WRITEV(pwritev64, off64_t)

#define POSITIONAL_WRITEV2(name, type) \
    ssize_t name(int fd, const struct iovec *iov, int count, type offset, int flags) { \
        ssize_t n = EVENT_CALL(ssize_t, fd, "write", 0, REAL(name)(fd, iov, count, offset, flags)); \
        if (enabled && n > 0) { \
            if (offset == -1) noted_sequential_write(fd, n); else noted_write(fd, (off_t)offset, n); \
        } \
        return n; \
    }
POSITIONAL_WRITEV2(pwritev2, off_t)
POSITIONAL_WRITEV2(pwritev64v2, off64_t)

#define TRUNCATE(name, type) \
    int name(int fd, type length) { \
        int r = EVENT_CALL(int, fd, "truncate", 0, REAL(name)(fd, length)); \
        if (enabled && r == 0) noted_truncate(fd, (off_t)length); \
        return r; \
    }
TRUNCATE(ftruncate, off_t)
TRUNCATE(ftruncate64, off64_t)

/* Allocation may extend the file with zeros or punch a hole: the range is dirty. */
int fallocate(int fd, int mode, off_t offset, off_t length) {
    int r = EVENT_CALL(int, fd, "write", 0, REAL(fallocate)(fd, mode, offset, length));
    if (enabled && r == 0) noted_write(fd, offset, length);
    return r;
}
int fallocate64(int fd, int mode, off64_t offset, off64_t length) {
    int r = EVENT_CALL(int, fd, "write", 0, REAL(fallocate64)(fd, mode, offset, length));
    if (enabled && r == 0) noted_write(fd, (off_t)offset, (off_t)length);
    return r;
}
int posix_fallocate(int fd, off_t offset, off_t length) {
    int r = EVENT_CALL(int, fd, "write", 0, REAL(posix_fallocate)(fd, offset, length));
    if (enabled && r == 0) noted_write(fd, offset, length);
    return r;
}
int posix_fallocate64(int fd, off64_t offset, off64_t length) {
    int r = EVENT_CALL(int, fd, "write", 0, REAL(posix_fallocate64)(fd, offset, length));
    if (enabled && r == 0) noted_write(fd, (off_t)offset, (off_t)length);
    return r;
}

int fsync(int fd) {
    int r = EVENT_CALL(int, fd, "sync", 1, REAL(fsync)(fd));
    if (enabled && r == 0) noted_sync(fd);
    return r;
}

int fdatasync(int fd) {
    int r = EVENT_CALL(int, fd, "sync", 1, REAL(fdatasync)(fd));
    if (enabled && r == 0) noted_sync(fd);
    return r;
}

/* libsodium's Argon2id: its return is the moment a PIN is checked (an event, when armed). */
int crypto_pwhash(unsigned char *out, unsigned long long outlen, const char *passwd, unsigned long long passwdlen,
                  const unsigned char *salt, unsigned long long opslimit, size_t memlimit, int alg) {
    int r = REAL(crypto_pwhash)(out, outlen, passwd, passwdlen, salt, opslimit, memlimit, alg);
    if (enabled) {
        int saved = errno;
        event_after(event_before(-1, "check", 0), 1);
        errno = saved;
    }
    return r;
}

/* A shared writable mapping writes behind the shim's back: such a file syncs whole.
 * (glibc's own mmap calls, for malloc, do not come through here.) */
void *mmap(void *address, size_t length, int protection, int flags, int fd, off_t offset) {
    void *p = (void *)syscall(SYS_mmap, address, length, protection, flags, fd, offset);
    if (enabled && p != MAP_FAILED && fd >= 0 && (flags & MAP_SHARED) && (protection & PROT_WRITE)) noted_map(fd);
    return p;
}
void *mmap64(void *address, size_t length, int protection, int flags, int fd, off64_t offset) {
    return mmap(address, length, protection, flags, fd, (off_t)offset);
}

/* O_TRUNC empties a file at open. */
static void noted_open(int fd, int flags) {
    if (enabled && fd >= 0 && (flags & O_TRUNC)) noted_truncate(fd, 0);
}

static mode_t mode_argument(int flags, va_list arguments) {
    return (flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE ? (mode_t)va_arg(arguments, int) : 0;
}

#define OPEN(name) \
    int name(const char *path, int flags, ...) { \
        va_list arguments; \
        va_start(arguments, flags); \
        mode_t mode = mode_argument(flags, arguments); \
        va_end(arguments); \
        int fd = REAL(name)(path, flags, mode); \
        noted_open(fd, flags); \
        return fd; \
    }
OPEN(open)
OPEN(open64)

#define OPENAT(name) \
    int name(int dir, const char *path, int flags, ...) { \
        va_list arguments; \
        va_start(arguments, flags); \
        mode_t mode = mode_argument(flags, arguments); \
        va_end(arguments); \
        int fd = REAL(name)(dir, path, flags, mode); \
        noted_open(fd, flags); \
        return fd; \
    }
OPENAT(openat)
OPENAT(openat64)

/* The _FORTIFY_SOURCE entry points, taken when the flags carry no mode. */
int __open_2(const char *path, int flags) { int fd = REAL(__open_2)(path, flags); noted_open(fd, flags); return fd; }
int __open64_2(const char *path, int flags) { int fd = REAL(__open64_2)(path, flags); noted_open(fd, flags); return fd; }
int __openat_2(int dir, const char *path, int flags) { int fd = REAL(__openat_2)(dir, path, flags); noted_open(fd, flags); return fd; }
int __openat64_2(int dir, const char *path, int flags) { int fd = REAL(__openat64_2)(dir, path, flags); noted_open(fd, flags); return fd; }

int creat(const char *path, mode_t mode) { int fd = REAL(creat)(path, mode); noted_open(fd, O_TRUNC); return fd; }
int creat64(const char *path, mode_t mode) { int fd = REAL(creat64)(path, mode); noted_open(fd, O_TRUNC); return fd; }

/* What the model does not cover stops the process loudly rather than pass unseen. */
static int is_watched_path(const char *path) {
    char copy[PATH_MAX];
    if (!path || !realpath(path, copy)) return 0;
    char *slash = strrchr(copy, '/');
    if (!slash) return 0;
    *slash = 0;
    return strcmp(copy, watched) == 0;
}

int truncate(const char *path, off_t length) {
    if (enabled && is_watched_path(path)) die("truncate(2) by path is not modelled");
    return REAL(truncate)(path, length);
}
int truncate64(const char *path, off64_t length) {
    if (enabled && is_watched_path(path)) die("truncate64(2) by path is not modelled");
    return REAL(truncate64)(path, length);
}
void sync(void) {
    if (enabled) die("sync(2) is not modelled");
    REAL(sync)();
}
int syncfs(int fd) {
    if (enabled) die("syncfs(2) is not modelled");
    return REAL(syncfs)(fd);
}
int sync_file_range(int fd, off64_t offset, off64_t count, unsigned int flags) {
    /* Makes nothing durable (no metadata, no disk cache flush): nothing to note. */
    return REAL(sync_file_range)(fd, offset, count, flags);
}
