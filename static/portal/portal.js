// Every page: tell the server the reader's time zone, so times read as the reader's clock shows them;
// and open the section menu on a wide screen (on a phone it stays folded until tapped).
(() => {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone && !document.cookie.split("; ").includes(`tz=${encodeURIComponent(zone)}`)) {
    document.cookie = `tz=${encodeURIComponent(zone)}; path=/; max-age=31536000; SameSite=Lax`;
  }
  const wide = window.matchMedia("(min-width: 768px)");
  const menus = () => document.querySelectorAll("details.section-menu");
  const fit = () => menus().forEach(menu => { menu.open = wide.matches; });
  document.addEventListener("DOMContentLoaded", fit);
  wide.addEventListener("change", fit);
})();
