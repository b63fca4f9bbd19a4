/* ir_rarity report: sortable and filterable tables, no framework.
 * A table with class "sortable" sorts by the column whose header is clicked (again: the other way round);
 * numeric cells carry their full value in data-value. An input with data-filter-table="ID" shows only the
 * rows of table ID whose data-search text (run and team) contains what is typed. */
(function () {
  "use strict";

  function cellKey(row, index) {
    var cell = row.cells[index];
    if (!cell) {
      return "";
    }
    var value = cell.getAttribute("data-value");
    if (value !== null && value !== "" && !isNaN(Number(value))) {
      return Number(value);
    }
    return (cell.textContent || "").trim().toLowerCase();
  }

  function compareKeys(a, b) {
    var aNumber = typeof a === "number";
    var bNumber = typeof b === "number";
    if (aNumber && bNumber) {
      return a - b;
    }
    if (aNumber !== bNumber) {
      return aNumber ? -1 : 1;
    }
    return a < b ? -1 : (a > b ? 1 : 0);
  }

  function sortBy(table, header, index) {
    var body = table.tBodies[0];
    var current = header.getAttribute("aria-sort");
    var descending;
    if (current === "descending") {
      descending = false;
    } else if (current === "ascending") {
      descending = true;
    } else {
      descending = header.getAttribute("data-first") === "descending";
    }
    var rows = Array.prototype.slice.call(body.rows).map(function (row, position) {
      return {row: row, key: cellKey(row, index), position: position};
    });
    rows.sort(function (a, b) {
      var aNumber = typeof a.key === "number";
      var bNumber = typeof b.key === "number";
      if (aNumber !== bNumber) {
        return aNumber ? -1 : 1;  /* cells without a number last, either way round */
      }
      var order = compareKeys(a.key, b.key);
      if (descending) {
        order = -order;
      }
      return order !== 0 ? order : a.position - b.position;
    });
    rows.forEach(function (item) {
      body.appendChild(item.row);
    });
    Array.prototype.forEach.call(table.querySelectorAll("thead th"), function (other) {
      other.removeAttribute("aria-sort");
    });
    header.setAttribute("aria-sort", descending ? "descending" : "ascending");
  }

  function setUpSorting(table) {
    if (!table.tHead || !table.tBodies.length) {
      return;
    }
    var headerRow = table.tHead.rows[table.tHead.rows.length - 1];
    Array.prototype.forEach.call(headerRow.cells, function (header, index) {
      header.tabIndex = 0;
      header.title = "sort by this column (click again: the other way round)";
      header.addEventListener("click", function () {
        sortBy(table, header, index);
      });
      header.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          sortBy(table, header, index);
        }
      });
    });
  }

  function setUpFilter(input) {
    var table = document.getElementById(input.getAttribute("data-filter-table"));
    var counter = document.getElementById(input.getAttribute("data-filter-count"));
    if (!table) {
      return;
    }
    input.addEventListener("input", function () {
      var terms = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var text = (row.getAttribute("data-search") || row.textContent || "").toLowerCase();
        var match = terms.every(function (term) {
          return text.indexOf(term) !== -1;
        });
        row.hidden = !match;
        shown += match ? 1 : 0;
      });
      if (counter) {
        counter.textContent = shown + " of " + table.tBodies[0].rows.length + " rows";
      }
    });
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), setUpSorting);
    Array.prototype.forEach.call(document.querySelectorAll("input[data-filter-table]"), setUpFilter);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
