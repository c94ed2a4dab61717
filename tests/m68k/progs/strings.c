/* strings.c -- string handling: copies, searches, tokens, conversions and formatting. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reverse(char *s) {
  for (size_t i = 0, j = strlen(s); i + 1 < j; i++, j--) {
    char t = s[i];
    s[i] = s[j - 1];
    s[j - 1] = t;
  }
}

int main(int argc, char **argv) {
  char buf[256], out[512];
  const char *text = "the quick brown fox jumps over the lazy dog";
  strcpy(buf, text);
  printf("len %zu, fox at %td, last 'o' at %td\n", strlen(buf), strstr(buf, "fox") - buf,
         strrchr(buf, 'o') - buf);
  for (char *p = buf; *p; p++)
    *p = (char)toupper((unsigned char)*p);
  printf("%s\n", buf);
  reverse(buf);
  printf("%s\n", buf);
  int words = 0;
  strcpy(buf, text);
  for (char *w = strtok(buf, " "); w != NULL; w = strtok(NULL, " ")) {
    printf("%d:%s%c", words, w, words % 4 == 3 ? '\n' : ' ');
    words++;
  }
  printf("\nwords %d\n", words);
  memmove(buf + 5, buf, 20);
  memset(buf, '#', 5);
  buf[25] = '\0';
  printf("moved [%s]\n", buf);
  snprintf(out, sizeof out, "%-8s|%8s|%.3s|%5d|%-5d|%05d|%x|%X|%o|%c|%%", "left", "right", "truncate", 42, 42, 42,
           0xbeef, 0xbeef, 8, 'z');
  printf("%s\n", out);
  printf("strtol %ld %ld %lu\n", strtol("-12345", NULL, 10), strtol("0x7fff", NULL, 16), strtoul("777", NULL, 8));
  printf("atoi %d cmp %d %d %d\n", atoi("  99 bottles"), strcmp("abc", "abd") < 0, strcmp("b", "a") > 0,
         strncmp("hello", "help", 3));
  for (int i = 0; i < argc; i++)
    printf("argv[%d] = %s\n", i == 0 ? 0 : i, i == 0 ? "(program)" : argv[i]);
  return (int)strlen(text);
}
