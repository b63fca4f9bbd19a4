/* ir_rarity report: sortable and filterable tables, no framework.
 * A table with class "sortable" sorts by the column whose header is clicked (again: the other way round);
 * numeric cells carry their full value in data-value. An input with data-filter-table="ID" shows only the
 * rows of table ID whose data-search text (run and team) contains what is typed, and a select with
 * data-group-table="ID" those whose data-group-N is the value chosen. Every sortable table gets CSV and LaTeX
 * buttons (window.irRarityReport.csv(ID) and .latex(ID) give the same texts). */
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

  function applyFilters(table) {
    /* a row is shown when it holds every term typed in the table's filter box and the value chosen in each of
       its select boxes (data-group-N of the row) */
    var input = document.querySelector('input[data-filter-table="' + table.id + '"]');
    var selects = document.querySelectorAll('select[data-group-table="' + table.id + '"]');
    var terms = input ? input.value.toLowerCase().split(/\s+/).filter(Boolean) : [];
    var shown = 0;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      var text = (row.getAttribute("data-search") || row.textContent || "").toLowerCase();
      var match = terms.every(function (term) {
        return text.indexOf(term) !== -1;
      });
      Array.prototype.forEach.call(selects, function (select) {
        var wanted = select.value;
        if (wanted !== "" && row.getAttribute("data-group-" + select.getAttribute("data-group-index")) !== wanted) {
          match = false;
        }
      });
      row.hidden = !match;
      shown += match ? 1 : 0;
    });
    var counter = input ? document.getElementById(input.getAttribute("data-filter-count")) : null;
    if (counter) {
      counter.textContent = shown + " of " + table.tBodies[0].rows.length + " rows";
    }
  }

  function setUpFilter(control) {
    var table = document.getElementById(control.getAttribute("data-filter-table") ||
                                        control.getAttribute("data-group-table"));
    if (!table) {
      return;
    }
    control.addEventListener(control.tagName === "SELECT" ? "change" : "input", function () {
      applyFilters(table);
    });
  }

  /* ---- export: every sortable table as CSV (full values: data-value where a cell has one) or LaTeX (the
     numbers as shown), built from the table itself, offline. */
  function headers(table) {
    var row = table.tHead.rows[table.tHead.rows.length - 1];
    return Array.prototype.map.call(row.cells, function (cell) {
      return (cell.textContent || "").trim();
    });
  }

  function shownText(cell) {
    /* the cell's own first text (a leaderboard cell's mean, without its marks and interval) */
    var first = cell.firstChild;
    var text = first && first.nodeType === 3 ? first.textContent : cell.textContent;
    return (text || "").trim();
  }

  function csvField(text) {
    return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }

  function toCsv(table) {
    var lines = [headers(table).map(csvField).join(",")];
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      lines.push(Array.prototype.map.call(row.cells, function (cell) {
        var value = cell.getAttribute("data-value");
        return csvField(value !== null ? value : shownText(cell));
      }).join(","));
    });
    return lines.join("\r\n") + "\r\n";
  }

  function latexText(text) {
    return text.replace(/\\/g, "\\textbackslash{}").replace(/([&%$#_{}])/g, "\\$1")
      .replace(/~/g, "\\textasciitilde{}").replace(/\^/g, "\\textasciicircum{}").replace(/–/g, "--");
  }

  function toLatex(table) {
    var names = headers(table);
    var align = Array.prototype.map.call(table.tHead.rows[table.tHead.rows.length - 1].cells, function (cell) {
      return cell.classList.contains("text") ? "l" : "r";
    }).join("");
    var lines = ["\\begin{tabular}{" + align + "}", "\\toprule", names.map(latexText).join(" & ") + " \\\\",
                 "\\midrule"];
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      lines.push(Array.prototype.map.call(row.cells, function (cell) {
        return latexText(shownText(cell));
      }).join(" & ") + " \\\\");
    });
    lines.push("\\bottomrule", "\\end{tabular}");
    return lines.join("\n") + "\n";
  }

  function download(name, text, type) {
    var link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], {type: type}));
    link.download = name;
    document.body.appendChild(link);
    link.click();
    document.body.removeChild(link);
  }

  function addExport(table) {
    if (!table.id || !table.tHead || !table.tBodies.length) {
      return;
    }
    var bar = document.createElement("div");
    bar.className = "export";
    [["CSV", "text/csv", ".csv", toCsv], ["LaTeX", "application/x-tex", ".tex", toLatex]].forEach(function (kind) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "export-" + kind[0].toLowerCase();
      button.setAttribute("data-export-table", table.id);
      button.textContent = kind[0];
      button.title = "download this table as " + kind[0];
      button.addEventListener("click", function () {
        download(table.id + kind[2], kind[3](table), kind[1]);
      });
      bar.appendChild(button);
    });
    var wrap = table.parentNode && table.parentNode.classList.contains("table-wrap") ? table.parentNode : table;
    wrap.parentNode.insertBefore(bar, wrap);
  }

  window.irRarityReport = {
    csv: function (id) {
      return toCsv(document.getElementById(id));
    },
    latex: function (id) {
      return toLatex(document.getElementById(id));
    }
  };

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), setUpSorting);
    Array.prototype.forEach.call(document.querySelectorAll("input[data-filter-table], select[data-group-table]"),
                                 setUpFilter);
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), addExport);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
