/* A C program using the installed supraseal-c2 drop-in: usage: supraseal KEY.params
 * Reads the SRS through the cache twice (one shared copy), clones and drops it, and checks the
 * error answer for a missing file. Exit 0 when all is well. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <snarkd/supraseal_c2.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s KEY.params\n", argv[0]);
    return 2;
  }
  int ok = 1;
  supraseal_srs a = {NULL}, b = {NULL};
  supraseal_error e = create_SRS(&a, argv[1], true);
  ok &= e.code == 0 && a.ptr != NULL;
  free(e.message);
  e = create_SRS(&b, argv[1], true);
  ok &= e.code == 0 && b.ptr == a.ptr;
  free(e.message);
  supraseal_srs c = clone_SRS(&a);
  ok &= c.ptr == a.ptr;
  drop_SRS(&c);
  drop_SRS(&b);
  evict_SRS(&a);
  drop_SRS(&a);
  supraseal_srs none = {NULL};
  e = create_SRS(&none, "/nonexistent.params", false);
  ok &= e.code == ENOENT && e.message && strstr(e.message, "/nonexistent.params");
  printf("missing file: code %d, \"%s\"\n", e.code, e.message ? e.message : "");
  free(e.message);
  void* m = create_gpu_mutex();
  ok &= m != NULL;
  destroy_gpu_mutex(m);
  printf("%s\n", ok ? "all checks passed" : "FAILED");
  return ok ? 0 : 1;
}
